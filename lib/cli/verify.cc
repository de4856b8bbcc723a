// Placeholder until the subcommand lands; replaced by its implementation.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int Verify(const VerifyOptions&) {
  std::fprintf(stderr, "dsanalyze: error: 'verify' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
