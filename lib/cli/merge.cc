// `dsanalyze merge`: merges analyses (merge/merge.h) and says what it wrote
// in one line; errors are one line, exit 2 or 3.
#include "merge/merge.h"

#include <cstdio>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "comm/launch_guard.h"

namespace dsanalyze::cli {

int Merge(const MergeOptions& options) {
  // One process merges: under mpiexec or srun, the launcher's rank 0.
  if (const std::optional<int> rank = LauncherRank(); rank && *rank != 0) return kExitOk;
  Result<MergeResult> merged = MergeAnalyses(options.inputs, options.out);
  if (!merged.ok()) {
    std::fprintf(stderr, "dsanalyze: error: %s\n", merged.status().message().c_str());
    return merged.status().exit_code();
  }
  std::printf("merge: wrote %s: %llu metric(s) over %llu samples from %zu analyses\n",
              options.out.c_str(), static_cast<unsigned long long>(merged->metrics),
              static_cast<unsigned long long>(merged->samples), options.inputs.size());
  return kExitOk;
}

}  // namespace dsanalyze::cli
