#include "pipeline/metric_plan.h"

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
  PutInAnalysisOrder(plan, [](const PlannedMetric& m) { return m.type(); });
  return plan;
}

}  // namespace dsanalyze
