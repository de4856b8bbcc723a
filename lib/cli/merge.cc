// `dsanalyze merge`: merges analyses (merge/merge.h) and says what it wrote
// in one line; errors are one line, exit 2 or 3; an interruption is the run's
// one line and exit 128 + the signal.
#include "merge/merge.h"

#include <cstdio>
#include <optional>
#include <string>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "comm/launch_guard.h"
#include "util/interrupt.h"

namespace dsanalyze::cli {
namespace {

// --timings: one process, so one column of seconds.
void PrintMergeTimings(const MergeResult& r) {
  std::string table = "stage                      seconds\n";
  char line[160];
  for (const StageTime& t : r.stages) {
    std::snprintf(line, sizeof(line), "%-24s %9.3f\n", t.stage.c_str(), t.rank0);
    table += line;
  }
  std::snprintf(line, sizeof(line), "peak RSS: %.1f MiB (anonymous %.1f MiB)\n",
                static_cast<double>(r.peak_rss_bytes) / (1 << 20),
                static_cast<double>(r.peak_anon_bytes) / (1 << 20));
  std::fputs((table + line).c_str(), stderr);
}

}  // namespace

int Merge(const MergeOptions& options) {
  // One process merges: under mpiexec or srun, the launcher's rank 0.
  if (const std::optional<int> rank = LauncherRank(); rank && *rank != 0) return kExitOk;
  InstallInterruptHandlers();
  Result<MergeResult> merged = [&] {
    Progress progress(ProgressFor({.progress = options.progress, .shown = true}), true);
    return MergeAnalyses(options.inputs, options.out, progress);
  }();  // the progress line is cleared before anything else is printed
  if (!merged.ok()) return ReportFailure(merged.status());
  if (merged->late_signal != 0)
    std::fprintf(stderr, "dsanalyze: warning: %s\n", CommittedDespite(merged->late_signal).c_str());
  if (options.timings) PrintMergeTimings(*merged);
  std::printf("merge: wrote %s: %llu metric(s) over %llu samples from %zu analyses\n",
              options.out.c_str(), static_cast<unsigned long long>(merged->metrics),
              static_cast<unsigned long long>(merged->samples), options.inputs.size());
  return kExitOk;
}

}  // namespace dsanalyze::cli
