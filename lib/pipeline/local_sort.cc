#include "pipeline/local_sort.h"

#include <algorithm>

namespace dsanalyze {
namespace {

// Stable LSD radix sort of keys on bits [lo_bit, hi_bit).
void RadixSort(std::vector<uint64_t>& keys, unsigned lo_bit, unsigned hi_bit) {
  const unsigned bits = hi_bit - lo_bit;
  if (bits == 0 || keys.size() < 2) return;
  const unsigned passes = (bits + 15) / 16;
  const unsigned digit_bits = (bits + passes - 1) / passes;
  const size_t buckets = size_t{1} << digit_bits;
  const uint64_t mask = buckets - 1;
  std::vector<uint64_t> tmp(keys.size());
  std::vector<uint64_t> count(buckets);
  uint64_t* src = keys.data();
  uint64_t* dst = tmp.data();
  const size_t n = keys.size();
  for (unsigned pass = 0; pass < passes; ++pass) {
    const unsigned shift = lo_bit + pass * digit_bits;
    std::fill(count.begin(), count.end(), 0);
    for (size_t i = 0; i < n; ++i) ++count[(src[i] >> shift) & mask];
    uint64_t sum = 0;
    for (size_t b = 0; b < buckets; ++b) {
      const uint64_t c = count[b];
      count[b] = sum;
      sum += c;
    }
    for (size_t i = 0; i < n; ++i) dst[count[(src[i] >> shift) & mask]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys.data()) keys.swap(tmp);
}

}  // namespace

void SortKeys(std::vector<uint64_t>& keys, const KeyLayout& layout, bool ids_ascending,
              unsigned /*threads*/) {
  const unsigned lo = ids_ascending ? layout.id_bits : 0;
  RadixSort(keys, std::min(lo, 64u), std::min(layout.total_bits(), 64u));
}

void SortKeys(std::vector<WideKey>& keys, const KeyLayout& /*layout*/, bool ids_ascending,
              unsigned /*threads*/) {
  if (ids_ascending) {
    std::stable_sort(keys.begin(), keys.end(),
                     [](const WideKey& a, const WideKey& b) { return a.hi < b.hi; });
  } else {
    std::sort(keys.begin(), keys.end());
  }
}

}  // namespace dsanalyze
