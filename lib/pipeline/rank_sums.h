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
// sample_to_metric files on rank 0 instead. What this adds to a run is one
// read of each such metric's values (docs/benchmarks.md, case RP).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "pipeline/metric_plan.h"
#include "pipeline/run_state.h"
#include "report/rank_correlation.h"
#include "util/status.h"

namespace dsanalyze {

// The widest value range counted: 2^20 + 1 counts, 8 MiB a metric.
inline constexpr uint64_t kRankSumsMaxRange = uint64_t{1} << 20;
// Values read from a spilled store at a time: 512 KiB of int64.
inline constexpr uint64_t kRankSumsChunk = uint64_t{1} << 16;

// Which of the plan's metrics the sums are of, so PrepareValues counts them:
// the single-value metrics whose statistics and sample_to_metric are written
// (output.files; report.cc AddSpearman), when there are two or more.
std::vector<bool> CountedForRankSums(const RunState& run, const MetricPlan& plan);

// Collective, after PrepareValues: the sums of the metrics
// CountedForRankSums names, in plan order; nullopt when there are none, no
// samples, or one's range is wider than kRankSumsMaxRange. The same on every
// rank. IoError from a spilled store.
Result<std::optional<RankSums>> SumRankProducts(RunState& run, MetricPlan& plan);

}  // namespace dsanalyze
