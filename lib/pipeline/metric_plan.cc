#include "pipeline/metric_plan.h"

#include <algorithm>

#include "metrics/registry.h"
#include "output/analysis_layout.h"
#include "pipeline/metric_jobs.h"

namespace dsanalyze {

Result<MetricPlan> PlanMetrics(const std::vector<MetricConfig>& metrics, const Dataset& dataset) {
  MetricPlan plan;
  for (const MetricConfig& config : metrics) {
    DSA_ASSIGN_OR_RETURN(std::unique_ptr<Metric> metric, CreateMetric(config, dataset));
    plan.push_back({&config, std::move(metric), std::nullopt, {}, nullptr, 0, 0, {}, std::nullopt});
  }
  std::stable_partition(plan.begin(), plan.end(), [](const PlannedMetric& m) {
    return m.type() == MetricType::kSingleValuePerSample;
  });
  return plan;
}

Status RunMetricJob(RunState& run, PlannedMetric& metric) {
  // None of its files chosen (output.files): it was not mapped, and its
  // folder, kept so a rerun still replaces the previous one, is all it gets.
  if (!WritesAnyKindOf(run.config.output.files, metric.type()))
    return run.MakeMetricDir(metric.name());
  switch (metric.type()) {
    case MetricType::kSingleValuePerSample:
      return RunSingleValueJob(run, metric);
    case MetricType::kAccumulateValueOverSamples:
      return RunAccumulateJob(run, metric);
  }
  return Status::Internal("metric " + metric.name() + ": no job for its type");
}

}  // namespace dsanalyze
