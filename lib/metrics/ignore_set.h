// IgnoreSet: membership test for a dataset's ignore_token_ids, the token ids
// that per-token metrics leave out.
//
// A dense table over [lo, hi] when that range is small (the usual case: a few
// special tokens), else binary search. Compares token values exactly across
// dtypes: uint64 2^64-1 is not the id -1. Immutable after construction; safe
// to share between threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

namespace dsanalyze {

class IgnoreSet {
 public:
  // `sorted_ids`: sorted, without repeats (Dataset::ignore_token_ids()).
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
  const std::vector<int64_t>& ids() const { return ids_; }

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

}  // namespace dsanalyze
