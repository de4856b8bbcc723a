// Placeholder until the subcommand lands; replaced by its implementation.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int Generate(const GenerateOptions&) {
  std::fprintf(stderr, "dsanalyze: error: 'generate' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
