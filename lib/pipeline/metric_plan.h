// The metric plan: one entry per configured metric, carrying everything the
// run learns about it — its metric object, the dependency pass's result, the
// map's result — to the job that writes its files.
//
// Each metric type has one job (metric_jobs.h): a single-value metric goes
// through range → sample_to_metric → sort → index files
// (single_value_job.cc), an accumulate metric through sum → metric_value
// (accumulate_job.cc). A new metric type adds its job and one case to
// RunMetricJob (metric_jobs.cc), beside its entry in output/analysis_layout.h
// kMetricTypes.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "dataset/dataset.h"
#include "index/scalar_rows.h"
#include "metrics/metric.h"
#include "pipeline/global_reduce.h"
#include "pipeline/index_path.h"
#include "sort/value_store.h"
#include "util/status.h"

namespace dsanalyze {

class RankSumsPass;  // rank_sums.h

// What the dependency pass (dependencies.h) learnt of a metric.
struct FromDependencyPass {
  // An accumulate metric that the pass computed: its global result. The map
  // leaves such a metric out.
  std::optional<std::vector<int64_t>> total;
};

// The map's result on this rank (map.h, pipeline.cc MapMetrics).
struct FromMap {
  // One value per local sample (single-value metrics) or the element-wise
  // sum over the local samples (accumulate).
  std::vector<int64_t> values;
  // Under a spilled memory plan (memory_plan.h), a single-value metric's
  // values are here instead of in `values` (but a metric binned by rank,
  // which needs them all at once), and the bytes the store spilled to the
  // scratch directory.
  std::unique_ptr<ValueStore> store;
  uint64_t spilled_bytes = 0;
};

// What the metric's job (metric_jobs.h) did, for the log and summary.json.
struct FromJob {
  uint64_t sort_passes = 0;  // the out-of-core sort's passes
  // A metric binned by rank (rank_bins.h): each bin's smallest and largest
  // value before binning, {min, max}.
  std::vector<std::array<int64_t, 2>> bin_ranges;
  // How its index files were written (index_path.h); none when it wrote none.
  std::optional<IndexPath> index_path;
  // A single-value metric's values over all ranks, after any bins
  // (metric_jobs.h PrepareValues), and for the rank sums (rank_sums.h) this
  // rank's counts of them.
  ValueRange range{};
  ValueCounts counts;
  // Set on the metric whose job writes the rank sums' metrics'
  // sample_to_metric rows with the sums (rank_sums.h); not owned.
  RankSumsPass* rank_sums = nullptr;
  // sample_to_metric's writer on one node (index/scalar_rows.h), from its
  // opening (before the map for the first single-value metric:
  // OpenFirstSampleToMetric) until the job finishes it.
  std::unique_ptr<ScalarRowsWriter> sample_to_metric;
  // Its rows written already, by the job of the metric with rank_sums set.
  bool sample_to_metric_started = false;
};

// One metric of the run: the plan entry PlanMetrics makes (its config and
// metric object), then what each stage learns of it, in run order.
struct PlannedMetric {
  const MetricConfig* config = nullptr;  // not owned: the run's Config
  std::unique_ptr<Metric> metric;
  FromDependencyPass dependency;
  FromMap map;
  FromJob job;

  const std::string& name() const { return config->name; }
  MetricType type() const { return metric->type(); }
};

// In analysis order (metrics/metric.h PutInAnalysisOrder).
using MetricPlan = std::vector<PlannedMetric>;

// Creates every configured metric for `dataset` (metrics/registry.h).
// Errors: the first metric that cannot be created (BadInput naming it).
Result<MetricPlan> PlanMetrics(const std::vector<MetricConfig>& metrics, const Dataset& dataset);

}  // namespace dsanalyze
