#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "metrics/builtin_metrics.h"

namespace dsanalyze {
namespace {

// Membership test for the ignored ids: a dense table over [lo, hi] when that
// range is small (the usual case: a few special tokens), else binary search.
class IgnoreSet {
 public:
  explicit IgnoreSet(std::span<const int64_t> sorted_ids)
      : ids_(sorted_ids.begin(), sorted_ids.end()) {
    if (ids_.empty()) return;
    lo_ = ids_.front();
    hi_ = ids_.back();
    constexpr uint64_t kMaxDense = uint64_t{1} << 16;
    if (static_cast<uint64_t>(hi_) - static_cast<uint64_t>(lo_) < kMaxDense) {
      dense_.assign(static_cast<size_t>(hi_ - lo_) + 1, 0);
      for (int64_t id : ids_) dense_[static_cast<size_t>(id - lo_)] = 1;
    }
  }

  bool empty() const { return ids_.empty(); }

  template <class T>
  bool contains(T value) const {
    if constexpr (std::is_same_v<T, uint64_t>) {
      if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    }
    const int64_t v = static_cast<int64_t>(value);
    if (v < lo_ || v > hi_) return false;
    if (!dense_.empty()) return dense_[static_cast<size_t>(v - lo_)] != 0;
    return std::binary_search(ids_.begin(), ids_.end(), v);
  }

 private:
  std::vector<int64_t> ids_;
  int64_t lo_ = 0;
  int64_t hi_ = -1;
  std::vector<uint8_t> dense_;
};

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
