// Placeholder until the subcommand lands; replaced by its implementation.
#include <cstdio>

#include "cli/commands.h"

namespace dsanalyze::cli {
int ListMetrics(const MetricsOptions&) {
  std::fprintf(stderr, "dsanalyze: error: 'metrics' is not implemented yet\n");
  return 3;
}
}  // namespace dsanalyze::cli
