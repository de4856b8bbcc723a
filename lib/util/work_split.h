// Equal-count parts of a range: how samples are divided among ranks and
// threads (format.md §2.8, DeepSpeed's split) and a training order into
// difficulty buckets (§2.12). Part w of W gets [b[w], b[w+1]) with
// b = floor(linspace(0, n, W+1)), computed exactly in integers: floor(w * n / W).
#pragma once

#include <cstdint>

namespace dsanalyze {

struct SampleRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end - begin; }
  bool operator==(const SampleRange&) const = default;
};

inline SampleRange SplitRange(SampleRange whole, uint64_t parts, uint64_t part) {
  const unsigned __int128 n = whole.size();
  return {whole.begin + static_cast<uint64_t>(n * part / parts),
          whole.begin + static_cast<uint64_t>(n * (part + 1) / parts)};
}

}  // namespace dsanalyze
