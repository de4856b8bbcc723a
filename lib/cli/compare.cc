// Placeholder until the subcommand lands; replaced by its implementation.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int Compare(const CompareOptions&) {
  std::fprintf(stderr, "dsanalyze: error: 'compare' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
