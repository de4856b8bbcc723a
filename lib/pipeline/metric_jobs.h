// The job of each metric type, run after the map on every rank (collective;
// every rank returns the same Status). Each writes the metric's files into
// rank 0's staging folder (run_state.h) as docs/format.md §2 says.
#pragma once

#include "pipeline/metric_plan.h"
#include "pipeline/run_state.h"
#include "util/status.h"

namespace dsanalyze {

// Collective: runs `metric`'s job (after the map) and writes its files: the
// job of its type, below.
Status RunMetricJob(RunState& run, PlannedMetric& metric);

// single_value_job.cc, before any job: a metric binned by rank (metrics/
// metric.h RankBins) gets its bins in place of its values (rank_bins.h), so
// that every metric holds what its files will, for the rank sums
// (rank_sums.h); other metrics are left as they are.
void BinByRank(RunState& run, PlannedMetric& metric);

// single_value_job.cc: the global value range (fitting the metric dtype) →
// sample_to_metric in sample order → local sort of (value, id) keys → sample
// sort across ranks → index_to_metric, index_to_sample and the
// percentile-merged grouping, after BinByRank. Consumes metric.map.values
// (or .map.store).
Status RunSingleValueJob(RunState& run, PlannedMetric& metric);

// accumulate_job.cc: the exact sum over ranks (or the dependency pass's
// result) → metric_value, one row. Consumes metric.map.values or .dependency.total.
Status RunAccumulateJob(RunState& run, PlannedMetric& metric);

}  // namespace dsanalyze
