#include "pipeline/metric_plan.h"

#include <algorithm>

#include "metrics/registry.h"

namespace dsanalyze {

Result<MetricPlan> PlanMetrics(const std::vector<MetricConfig>& metrics, const Dataset& dataset) {
  MetricPlan plan;
  for (const MetricConfig& config : metrics) {
    DSA_ASSIGN_OR_RETURN(std::unique_ptr<Metric> metric, CreateMetric(config, dataset));
    PlannedMetric& m = plan.emplace_back();
    m.config = &config;
    m.metric = std::move(metric);
  }
  std::stable_partition(plan.begin(), plan.end(), [](const PlannedMetric& m) {
    return m.type() == MetricType::kSingleValuePerSample;
  });
  return plan;
}

}  // namespace dsanalyze
