#include "metrics/metric.h"

namespace dsanalyze {

std::string_view MetricTypeName(MetricType t) {
  switch (t) {
    case MetricType::kSingleValuePerSample:
      return "single_value_per_sample";
    case MetricType::kAccumulateValueOverSamples:
    default:
      return "accumulate_value_over_samples";
  }
}

Status Metric::SetDependencyResults(std::span<const std::vector<int64_t>> results) {
  if (results.empty()) return Status::OK();
  return Status::Internal("dependency results given to a metric that declared no dependencies");
}

// The pipeline calls only the method that matches type(); reaching a default
// is a bug in the caller or the metric.
Status Metric::Compute(const SampleBatch&, std::span<int64_t>) const {
  return Status::Internal(
      "Compute called on a metric that is not a single_value_per_sample metric");
}

Status Metric::ComputeTogether(const SampleBatch&, std::span<const Metric* const>,
                               std::span<const std::span<int64_t>>) const {
  return Status::Internal("ComputeTogether called on a metric without a shared pass");
}

Status Metric::Accumulate(const SampleBatch&, std::span<int64_t>) const {
  return Status::Internal(
      "Accumulate called on a metric that is not an accumulate_value_over_samples metric");
}

}  // namespace dsanalyze
