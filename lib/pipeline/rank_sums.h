// The rank product sums behind summary.json's "spearman"
// (report/rank_correlation.h), summed on every rank over its own samples
// from the values the map left (in memory, or in a spilled store), after any
// binning by rank and before the metric jobs consume them; the ranks' sums
// are then added in one small reduction. No file is read back and no rank
// sees another's samples.
//
// Every value's average rank comes from the metric's global counts by value:
// each rank counts its values in the pass that finds their range
// (metric_jobs.h PrepareValues), and the counts are added over the ranks (an
// Allreduce of range + 1 counts). So a metric whose values span more than
// kRankSumsMaxRange + 1 integers (a float score without a scale, token-count
// sums) has no sums here: the report then streams the metrics'
// sample_to_metric files on rank 0 instead.
//
// Where the sums are made: on one node, in the counted metrics'
// sample_to_metric writes, which read their values a chunk at a time anyway
// (index/scalar_rows.h): the first counted metric's job writes every counted
// metric's rows together, a chunk of each at a time, and sums each chunk's
// rows after their writes, while they are in cache
// (pipeline/single_value_job.cc). So no metric's values are read from memory
// a second time for the sums (docs/benchmarks.md, case RP: the pass was bound
// by memory bandwidth when every rank made it at once). Across nodes those
// writes gather the values to rank 0 instead, so the sums take a pass of
// their own before the jobs. Either way their time is stage rank_sums: the
// part made inside the writes is timed around each chunk's sums and moved
// out of sample_to_metric, which keeps the reads and the writes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "pipeline/metric_plan.h"
#include "pipeline/run_state.h"
#include "report/rank_correlation.h"
#include "util/status.h"

namespace dsanalyze {

// The widest value range counted: 2^20 + 1 counts, 8 MiB a metric.
inline constexpr uint64_t kRankSumsMaxRange = uint64_t{1} << 20;
// Values a metric read and summed at a time from a spilled store (one read
// each): 512 KiB of int64.
inline constexpr uint64_t kRankSumsChunk = uint64_t{1} << 16;
// Values a metric written and summed at a time in the sample_to_metric
// writes when the map holds them in memory: 128 KiB of int64, so that every
// metric's chunk, its rows converted to the file's dtype and the kernel's
// page-cache copy of those stay in a core's L2 cache from the writes to the
// sums. With 512 KiB a metric they did not, and the sums read the values
// from memory again (docs/benchmarks.md, case RP: rank_sums 0.050 s ->
// 0.035 s at 1e8 samples).
inline constexpr uint64_t kRankSumsCachedChunk = uint64_t{1} << 14;

// Which of the plan's metrics the sums are of, so PrepareValues counts them:
// the single-value metrics whose statistics and sample_to_metric are written
// (output.files; report.cc AddSpearman), when there are two or more.
std::vector<bool> CountedForRankSums(const RunState& run, const MetricPlan& plan);

// The sums of the metrics CountedForRankSums names, in plan order, made in
// two collective steps around the metric jobs.
class RankSumsPass {
 public:
  RankSumsPass() = default;
  ~RankSumsPass();                             // unsets the job's pointer
  RankSumsPass(const RankSumsPass&) = delete;  // a metric's job may point at it
  RankSumsPass& operator=(const RankSumsPass&) = delete;

  // Collective, after PrepareValues: each counted metric's global counts
  // (freeing this rank's). None when CountedForRankSums names none, there
  // are no samples, or one's range is wider than kRankSumsMaxRange. On one
  // node, sets job.rank_sums of the first counted metric, whose job then
  // writes the counted metrics' sample_to_metric rows and gives each chunk
  // of them to Add; across nodes, sums every sample here. IoError from a
  // spilled store; Internal for a value that was not counted. The pass must
  // stay where it is until Finish.
  Status Begin(RunState& run, MetricPlan& plan);

  // The metrics the sums are of, in plan order (Begin).
  const std::vector<PlannedMetric*>& metrics() const { return metrics_; }

  // Adds this rank's rows [from, from + len): parts[a] their values in
  // metrics()[a], each len long; rows in order, from the first. The time
  // goes from stage sample_to_metric to rank_sums. Internal for rows out of
  // order or a value that was not counted.
  Status Add(RunState& run, uint64_t from, std::span<const std::span<const int64_t>> parts);

  // Collective, after the jobs: the sums, the same on every rank; nullopt
  // when there are none. Internal when the writes did not give every row of
  // this rank to Add once.
  Result<std::optional<RankSums>> Finish(RunState& run);

 private:
  std::vector<PlannedMetric*> metrics_;       // counted, in plan order
  std::vector<CountedValues> distributions_;  // theirs, over all ranks
  std::optional<RankProductSums> sums_;       // this rank's
  uint64_t samples_ = 0;                      // this rank's
  uint64_t rows_ = 0;                         // of them, summed
};

}  // namespace dsanalyze
