#include "metrics/builtin_metrics.h"

namespace dsanalyze {
namespace {

class ValueMetric : public Metric {
 public:
  explicit ValueMetric(std::string name) : name_(std::move(name)) {}
  MetricType type() const override { return MetricType::kSingleValuePerSample; }
  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    return ExtractSingleValues(batch, name_, values);
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Metric> NewValueMetric(std::string name) {
  return std::make_unique<ValueMetric>(std::move(name));
}

}  // namespace dsanalyze
