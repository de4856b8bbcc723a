#include "dataset/sample_ids.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "config/memory_budget.h"

namespace dsanalyze {
namespace {

// The first position (in iteration order) whose id already occurred, as
// "id X appears at positions A and B", or "" when all ids are distinct.
std::string FirstRepeat(std::span<const int64_t> ids, int64_t min, int64_t max) {
  const uint64_t n = ids.size();
  const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  uint64_t second = n;  // position of the first repeat, n when none

  if (range / 64 < n) {
    // Dense ids: one bit per possible id, at most 8 bytes per sample.
    std::vector<uint64_t> seen(range / 64 + 1);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t bit = static_cast<uint64_t>(ids[i]) - static_cast<uint64_t>(min);
      uint64_t& word = seen[bit / 64];
      const uint64_t mask = uint64_t{1} << (bit % 64);
      if (word & mask) {
        second = i;
        break;
      }
      word |= mask;
    }
  } else {
    // Sparse ids: sort a copy to learn whether any id repeats. Only then (an
    // error path) find the earliest repeat, from the sorted repeated values.
    std::vector<int64_t> sorted(ids.begin(), ids.end());
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> repeated;
    for (uint64_t i = 1; i < n; ++i)
      if (sorted[i] == sorted[i - 1] && (repeated.empty() || repeated.back() != sorted[i]))
        repeated.push_back(sorted[i]);
    if (repeated.empty()) return "";
    std::vector<uint8_t> occurred(repeated.size(), 0);
    for (uint64_t i = 0; i < n; ++i) {
      auto it = std::lower_bound(repeated.begin(), repeated.end(), ids[i]);
      if (it == repeated.end() || *it != ids[i]) continue;
      uint8_t& o = occurred[static_cast<size_t>(it - repeated.begin())];
      if (o) {
        second = i;
        break;
      }
      o = 1;
    }
  }
  if (second == n) return "";
  const int64_t id = ids[second];
  const uint64_t first = static_cast<uint64_t>(std::find(ids.begin(), ids.end(), id) - ids.begin());
  return "id " + std::to_string(id) + " appears twice, at positions " + std::to_string(first) +
         " and " + std::to_string(second);
}

}  // namespace

Result<SampleIds> SampleIds::Open(const std::string& npy_path, uint64_t num_samples) {
  const auto bad = [&](const std::string& what) {
    return Status::BadInput("dataset.sample_indices: " + npy_path + ": " + what);
  };
  Result<NpyArray> array = NpyArray::Open(npy_path);
  if (!array.ok()) return array.status().WithPrefix("dataset.sample_indices");
  SampleIds s;
  s.array_ = std::move(array).value();
  const NpyArray& a = s.array_;
  if (a.shape().size() != 1)
    return bad("shape " + a.shape_string() + "; expected a 1-D array with one id per sample");
  if (a.size() != num_samples)
    return bad(std::to_string(a.size()) + " ids for " + std::to_string(num_samples) +
               " samples; expected one id per sample");

  const ElementView v = a.elements();
  const bool aligned = reinterpret_cast<uintptr_t>(v.data) % alignof(int64_t) == 0;
  const bool widen = a.dtype() != DType::kI64 || !aligned;
  // Widened to int64 unless they are, then a bitmap or a sorted copy to find
  // a repeat (FirstRepeat): at most 8 bytes an id each.
  const uint64_t bytes_per_id = widen ? 16 : 8;
  DSA_RETURN_IF_ERROR(
      CheckMemoryNeed({.key = "config: dataset.sample_indices",
                       .what = npy_path + ": " + std::to_string(a.size()) + " ids at " +
                               std::to_string(bytes_per_id) + " bytes each",
                       .bytes = SaturatingProduct(a.size(), bytes_per_id)}));
  if (!widen) {
    s.ids_ = v.as<int64_t>();
  } else {
    s.widened_.resize(a.size());
    for (uint64_t i = 0; i < a.size(); ++i) {
      if (a.dtype() == DType::kU64) {
        uint64_t u;
        std::memcpy(&u, v.data + 8 * i, 8);
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          return bad("id " + std::to_string(u) + " at position " + std::to_string(i) +
                     " does not fit int64");
      }
      s.widened_[i] = a.at(i);
    }
    s.ids_ = s.widened_;
  }
  if (s.ids_.empty()) return s;

  const auto [lo, hi] = std::minmax_element(s.ids_.begin(), s.ids_.end());
  s.min_ = *lo;
  s.max_ = *hi;
  const std::string repeat = FirstRepeat(s.ids_, s.min_, s.max_);
  if (!repeat.empty()) return bad(repeat + "; sample ids must be distinct");
  return s;
}

}  // namespace dsanalyze
