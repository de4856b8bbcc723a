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

// single_value_job.cc, before the map: on one node, opens the first
// single-value metric's sample_to_metric when output.files has it
// (metric.job.sample_to_metric), whose .idx's sizes, a function of the sample
// count alone, then go to the disk through the map and the ranges, which
// write nothing (index/scalar_rows.h). The other metrics' open in their jobs:
// the first's job keeps the disk busy until then.
Status OpenFirstSampleToMetric(RunState& run, MetricPlan& plan);

// single_value_job.cc, before any job: a single-value metric binned by rank
// (metrics/metric.h RankBins) gets its bins in place of its values
// (rank_bins.h), and every single-value metric its global value range
// (metric.job.range), so that the values are what its files will hold, for
// the rank sums (rank_sums.h) and its job; with `count`, this rank's counts
// of them too (metric.job.counts), in the same pass where the values are in
// memory. IoError reading a spilled store.
Status PrepareValues(RunState& run, PlannedMetric& metric, bool count);

// single_value_job.cc: after PrepareValues, the metric dtype its range fits
// → sample_to_metric in sample order → local sort of (value, id) keys → sample
// sort across ranks → index_to_metric, index_to_sample and the
// percentile-merged grouping. Consumes metric.map.values
// (or .map.store).
Status RunSingleValueJob(RunState& run, PlannedMetric& metric);

// accumulate_job.cc: the exact sum over ranks (or the dependency pass's
// result) → metric_value, one row. Consumes metric.map.values or .dependency.total.
Status RunAccumulateJob(RunState& run, PlannedMetric& metric);

}  // namespace dsanalyze
