// Placeholder until the subcommand lands; replaced by its implementation.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int Inspect(const InspectOptions&) {
  std::fprintf(stderr, "dsanalyze: error: 'inspect' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
