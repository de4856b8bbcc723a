#include <array>

#include "metrics/builtin_metrics.h"
#include "util/checked_add.h"

namespace dsanalyze {
namespace {

// Values are extracted a stack-sized chunk at a time: no allocation, and the
// overflow check runs on plain int64s.
constexpr size_t kChunk = 512;

// sum += values without a check per value, when no partial sum can
// overflow: |sum| <= 2^62 and every |value| <= 2^51, at most kChunk of them
// (partial sums stay within 2^62 + 2^60). The loop has no early exit, so it
// vectorizes; its arithmetic is unsigned, defined even for the values that
// fail the bound. False, with `sum` unchanged, when a bound fails: the caller
// then adds value by value and names the sample where the sum overflows.
bool AddSmall(int64_t* sum, std::span<const int64_t> values) {
  constexpr uint64_t kValueBound = uint64_t{1} << 51;
  constexpr int64_t kSumBound = int64_t{1} << 62;
  static_assert(kChunk * kValueBound <= uint64_t{1} << 60);
  if (values.size() > kChunk || *sum > kSumBound || *sum < -kSumBound) return false;
  uint64_t total = 0, out_of_bound = 0;
  for (int64_t v : values) {
    total += static_cast<uint64_t>(v);
    out_of_bound |= static_cast<uint64_t>(v) + kValueBound > 2 * kValueBound;
  }
  if (out_of_bound != 0) return false;
  *sum += static_cast<int64_t>(total);
  return true;
}

class SumMetric : public Metric {
 public:
  explicit SumMetric(std::string name) : name_(std::move(name)) {}
  MetricType type() const override { return MetricType::kAccumulateValueOverSamples; }
  size_t accumulate_length() const override { return 1; }

  Status Accumulate(const SampleBatch& batch, std::span<int64_t> acc) const override {
    if (acc.size() != 1)
      return Status::Internal("metric \"" + name_ + "\": accumulator of length " +
                              std::to_string(acc.size()) + ", expected 1");
    std::array<int64_t, kChunk> values;
    int64_t sum = acc[0];
    for (size_t start = 0; start < batch.size(); start += kChunk) {
      const size_t n = std::min(kChunk, batch.size() - start);
      const SampleBatch part{batch.first + start, batch.dtype, batch.elements,
                             batch.offsets.subspan(start, n + 1)};
      DSA_RETURN_IF_ERROR(ExtractSingleValues(part, name_, std::span<int64_t>(values.data(), n)));
      if (AddSmall(&sum, std::span<const int64_t>(values.data(), n))) continue;
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
