// The metric plan: one entry per configured metric, carrying everything the
// run learns about it — its metric object, the dependency pass's result, the
// map's result — to the job that writes its files.
//
// Each metric type has one job (metric_jobs.h): a single-value metric goes
// through range → sample_to_metric → sort → index files
// (single_value_job.cc), an accumulate metric through sum → metric_value
// (accumulate_job.cc). A new metric type adds its job and one line to
// RunMetricJob (metric_plan.cc).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "dataset/dataset.h"
#include "metrics/metric.h"
#include "pipeline/index_path.h"
#include "sort/value_store.h"
#include "util/status.h"

namespace dsanalyze {

struct RunState;

struct PlannedMetric {
  const MetricConfig* config = nullptr;  // not owned: the run's Config
  std::unique_ptr<Metric> metric;
  // An accumulate metric that the dependency pass computed (dependencies.h):
  // its global result. The map leaves such a metric out.
  std::optional<std::vector<int64_t>> precomputed;
  // The map's result on this rank: one value per local sample (single-value
  // metrics) or the element-wise sum over the local samples (accumulate).
  std::vector<int64_t> mapped;
  // Under a spilled memory plan (memory_plan.h), a single-value metric's
  // values are here instead of in `mapped` (but a metric binned by rank,
  // which needs them all at once).
  std::unique_ptr<ValueStore> store;
  // For the log and summary.json: the out-of-core sort's passes, and the
  // bytes this rank's store spilled to the scratch directory.
  uint64_t sort_passes = 0;
  uint64_t spilled_bytes = 0;
  // A metric binned by rank (rank_bins.h): each bin's smallest and largest
  // value before binning, {min, max}.
  std::vector<std::array<int64_t, 2>> bin_ranges;
  // How its index files were written (index_path.h), for summary.json; none
  // when it wrote none.
  std::optional<IndexPath> index_path;

  const std::string& name() const { return config->name; }
  MetricType type() const { return metric->type(); }
};

// Single-value metrics first, then accumulate metrics, each in config order:
// the order the metrics are mapped, written, listed in summary.json and
// committed.
using MetricPlan = std::vector<PlannedMetric>;

// Creates every configured metric for `dataset` (metrics/registry.h).
// Errors: the first metric that cannot be created (BadInput naming it).
Result<MetricPlan> PlanMetrics(const std::vector<MetricConfig>& metrics, const Dataset& dataset);

// Collective: runs `metric`'s job (after the map) and writes its files.
Status RunMetricJob(RunState& run, PlannedMetric& metric);

}  // namespace dsanalyze
