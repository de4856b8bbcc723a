#include "metrics/builtin_metrics.h"
#include "metrics/ignore_set.h"

namespace dsanalyze {
namespace {

class SeqlenMetric : public Metric {
 public:
  SeqlenMetric(std::string name, std::span<const int64_t> ignore_token_ids)
      : name_(std::move(name)), ignore_(ignore_token_ids) {}

  MetricType type() const override { return MetricType::kSingleValuePerSample; }
  bool needs_elements() const override { return !ignore_.empty(); }

  Status Compute(const SampleBatch& batch, std::span<int64_t> values) const override {
    const size_t n = batch.size();
    if (values.size() != n)
      return Status::Internal("metric \"" + name_ + "\": " + std::to_string(values.size()) +
                              " outputs for a batch of " + std::to_string(n));
    const uint64_t* offsets = batch.offsets.data();
    if (ignore_.empty()) {
      for (size_t i = 0; i < n; ++i) values[i] = static_cast<int64_t>(offsets[i + 1] - offsets[i]);
      return Status::OK();
    }
    VisitIntDType(batch.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T* elements = reinterpret_cast<const T*>(batch.elements);
      for (size_t i = 0; i < n; ++i) {
        uint64_t ignored = 0;
        for (uint64_t k = offsets[i]; k < offsets[i + 1]; ++k)
          ignored += ignore_.contains(elements[k]);
        values[i] = static_cast<int64_t>(offsets[i + 1] - offsets[i] - ignored);
      }
    });
    return Status::OK();
  }

 private:
  std::string name_;
  IgnoreSet ignore_;
};

}  // namespace

std::unique_ptr<Metric> NewSeqlenMetric(std::string name,
                                        std::span<const int64_t> ignore_token_ids) {
  return std::make_unique<SeqlenMetric>(std::move(name), ignore_token_ids);
}

}  // namespace dsanalyze
