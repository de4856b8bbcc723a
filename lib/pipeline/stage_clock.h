// The timed stages of a run and the clock that times them.
//
// Each rank's pipeline thread owns one StageClock. The stage names are what
// summary.json's "timings" and `--timings` show, in this order.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "util/memory_usage.h"

namespace dsanalyze {

enum Stage {
  kStageOpen,
  kStageMap,
  kStageRankBins,
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
    "open",      "map",      "rank_bins", "minmax", "sample_to_metric", "local_sort",
    "splitters", "exchange", "merge",     "write",  "accumulate",       "report_commit"};

// Seconds per stage, and the anonymous memory sampled at each stage end
// (Linux keeps no peak of it; see util/memory_usage.h).
class StageClock {
 public:
  void Start() { t0_ = MPI_Wtime(); }
  // Adds the time since Start (or the last Lap or Restart) to `stage`.
  void Lap(Stage stage) {
    const double t = MPI_Wtime();
    seconds[stage] += t - t0_;
    t0_ = t;
    SampleMemory();
  }
  // Adds time measured elsewhere (the sample sort's phases) to `stage`.
  void Add(Stage stage, double s) { seconds[stage] += s; }
  // Starts timing anew without attributing the time since the last Lap.
  void Restart() {
    t0_ = MPI_Wtime();
    SampleMemory();
  }
  std::vector<double> seconds = std::vector<double>(kNumStages, 0.0);
  int64_t peak_anon_bytes = 0;

 private:
  void SampleMemory() { peak_anon_bytes = std::max(peak_anon_bytes, AnonRssBytes()); }

  double t0_ = 0;
};

}  // namespace dsanalyze
