#include "check/element_search.h"

#include <algorithm>
#include <cstring>

namespace dsanalyze {

uint64_t RowOfElement(const IndexedDataset& ds, uint64_t e) {
  uint64_t lo = 0, hi = ds.num_rows();  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (ds.row_begin(mid) <= e)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

std::optional<uint64_t> FirstDifferentByte(const std::byte* a, const std::byte* b, uint64_t size) {
  // memcmp over large chunks finds equal data at memory speed; only the
  // differing chunk is scanned byte by byte.
  constexpr uint64_t kChunk = 1 << 16;
  for (uint64_t off = 0; off < size; off += kChunk) {
    const uint64_t n = std::min(kChunk, size - off);
    if (std::memcmp(a + off, b + off, n) == 0) continue;
    for (uint64_t i = off;; ++i)
      if (a[i] != b[i]) return i;
  }
  return std::nullopt;
}

}  // namespace dsanalyze
