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

// single_value_job.cc: the global value range (fitting the metric dtype) →
// sample_to_metric in sample order → local sort of (value, id) keys → sample
// sort across ranks → index_to_metric, index_to_sample and the
// percentile-merged grouping. Consumes metric.map.values (or .map.store).
Status RunSingleValueJob(RunState& run, PlannedMetric& metric);

// accumulate_job.cc: the exact sum over ranks (or the dependency pass's
// result) → metric_value, one row. Consumes metric.map.values or .dependency.total.
Status RunAccumulateJob(RunState& run, PlannedMetric& metric);

}  // namespace dsanalyze
