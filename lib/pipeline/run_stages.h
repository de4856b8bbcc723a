// The timed stages of a run, in the order summary.json's "timings" and
// `--timings` show them; each rank's clock (util/stage_clock.h, in
// run_state.h) is made with these names.
#pragma once

namespace dsanalyze {

enum Stage {
  kStageOpen,
  kStageMap,
  kStageRankBins,
  kStageRankSums,
  kStageMinMax,
  kStageSampleToMetric,
  kStageLocalSort,
  kStageSplitters,
  kStageExchange,
  kStageMerge,
  kStageWrite,
  kStageAccumulate,
  kStageCommit,
  kNumStages
};
inline constexpr const char* kStageNames[kNumStages] = {
    "open",         "map",       "rank_bins", "rank_sums", "minmax", "sample_to_metric",
    "local_sort",   "splitters", "exchange",  "merge",     "write",  "accumulate",
    "report_commit"};

}  // namespace dsanalyze
