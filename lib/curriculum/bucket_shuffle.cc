#include "curriculum/bucket_shuffle.h"

#include <utility>

namespace dsanalyze {
namespace {

// A uniform-enough index in [0, bound): the high half of next * bound.
uint64_t Below(uint64_t random, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(random) * bound) >> 64);
}

}  // namespace

void ShuffleBucket(std::span<int64_t> ids, uint64_t seed, uint64_t bucket) {
  constexpr uint64_t kBatch = 16;
  SplitMix64 rng = BucketGenerator(seed, bucket);
  int64_t* a = ids.data();
  uint64_t i = ids.size() == 0 ? 0 : ids.size() - 1;  // the next step swaps a[i]
  while (i >= kBatch) {
    uint64_t j[kBatch];
    for (uint64_t k = 0; k < kBatch; ++k) {
      j[k] = Below(rng.Next(), i - k + 1);
      __builtin_prefetch(a + j[k], 1);
    }
    for (uint64_t k = 0; k < kBatch; ++k) std::swap(a[i - k], a[j[k]]);
    i -= kBatch;
  }
  for (; i >= 1; --i) std::swap(a[i], a[Below(rng.Next(), i + 1)]);
}

}  // namespace dsanalyze
