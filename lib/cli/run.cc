// Placeholder until the pipeline lands.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int Run(const RunOptions&, int, char**) {
  std::fprintf(stderr, "dsanalyze: error: 'run' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
