#include <array>

#include "metrics/builtin_metrics.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

class SumMetric : public Metric {
 public:
  explicit SumMetric(std::string name) : name_(std::move(name)) {}
  MetricType type() const override { return MetricType::kAccumulateValueOverSamples; }
  size_t accumulate_length() const override { return 1; }

  Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const override {
    if (acc.size() != 1)
      return Status::Internal("metric \"" + name_ + "\": accumulator of length " +
                              std::to_string(acc.size()) + ", expected 1");
    // Values are extracted a stack-sized chunk at a time: no allocation, and
    // the overflow check runs on plain int64s.
    constexpr size_t kChunk = 512;
    std::array<int64_t, kChunk> values;
    int64_t sum = acc[0];
    for (size_t start = 0; start < batch.size(); start += kChunk) {
      const size_t n = std::min(kChunk, batch.size() - start);
      const SampleBatch part{batch.first + start, batch.dtype, batch.elements,
                             batch.offsets.subspan(start, n + 1)};
      DSA_RETURN_IF_ERROR(ExtractSingleValues(part, name_, std::span<int64_t>(values.data(), n)));
      for (size_t i = 0; i < n; ++i) {
        if (!AddChecked(&sum, values[i]))
          return Status::BadInput("metric \"" + name_ + "\": the sum overflows int64 at sample " +
                                  std::to_string(part.first + i));
      }
    }
    acc[0] = sum;
    return Status::OK();
  }

 private:
  std::string name_;
};

}  // namespace

std::unique_ptr<Metric> NewSumMetric(std::string name) {
  return std::make_unique<SumMetric>(std::move(name));
}

}  // namespace dsanalyze
