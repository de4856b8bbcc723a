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
#include "output/save_lock.h"
#include "util/interrupt.h"

namespace dsanalyze::cli {
namespace {

// --timings: one process, so one column of seconds.
TimingTable MergeTimings(const MergeResult& r) {
  TimingTable table;
  for (const StageTime& t : r.stages) table.rows.push_back({t.stage, t});
  table.width = 24;
  table.one_process = true;
  table.peak_rss_bytes = {r.peak_rss_bytes};
  table.peak_anon_bytes = {r.peak_anon_bytes};
  return table;
}

}  // namespace

int Merge(const MergeOptions& options) {
  // One process merges: under mpiexec or srun, the launcher's rank 0.
  if (const std::optional<int> rank = LauncherRank(); rank && *rank != 0) return kExitOk;
  InstallInterruptHandlers();
  const Result<std::vector<SaveLock>> reading = LockForReading(options.inputs);
  if (!reading.ok()) return ReportFailure(reading.status());
  Result<MergeResult> merged = [&] {
    Progress progress(ProgressFor({.progress = options.progress, .shown = true}), true);
    return MergeAnalyses(options.inputs, options.out, progress);
  }();  // the progress line is cleared before anything else is printed
  if (!merged.ok()) return ReportFailure(merged.status());
  if (options.timings) std::fputs(FormatTimings(MergeTimings(*merged)).c_str(), stderr);
  std::printf("merge: wrote %s: %llu metric(s) over %llu samples from %zu analyses\n",
              options.out.c_str(), static_cast<unsigned long long>(merged->metrics),
              static_cast<unsigned long long>(merged->samples), options.inputs.size());
  return kExitOk;
}

}  // namespace dsanalyze::cli
