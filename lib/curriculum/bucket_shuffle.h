// The shuffle inside one difficulty bucket of a training order
// (docs/format.md §2.12), specified exactly so that any implementation, e.g.
// the Python one in tests/curriculum/order_run_test.py, gives the same order:
//
//   Mix(z):  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
//            z = (z ^ (z >> 27)) * 0x94D049BB133111EB
//            return z ^ (z >> 31)                        (all mod 2^64)
//   splitmix64 with state s:  s += 0x9E3779B97F4A7C15; return Mix(s)
//   bucket b under seed S starts from s = Mix(Mix(S) + b)
//   Fisher-Yates: for i = n-1 down to 1:
//       j = (next() * (i + 1)) >> 64                     (128-bit product)
//       swap(a[i], a[j])
//
// Pure functions of their arguments; thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

#include "util/splitmix64.h"

namespace dsanalyze {

// The generator of bucket `bucket` under `seed`: state Mix(Mix(seed) + bucket).
inline SplitMix64 BucketGenerator(uint64_t seed, uint64_t bucket) {
  return SplitMix64(SplitMix64::Mix(SplitMix64::Mix(seed) + bucket));
}

// The shuffle of a bucket applied to several arrays of its length at once,
// each moved as its ids would be (the swaps do not depend on the elements),
// with one draw a step: `order --megatron-core-cache` shuffles the entries
// of the index files it rewrites together. T: int64_t or an unsigned
// integer type. Draws and swaps in the order the specification gives. A
// bucket of 1M ids (8 MB) does not fit in the closer caches, so each step's
// swap partner is drawn and prefetched kAhead steps before its swap: a
// steady kAhead misses in flight (batches of 16 drawn then swapped left
// the first swap of each batch waiting for its miss alone).
template <class... T>
void ShuffleTogether(uint64_t seed, uint64_t bucket, std::span<T>... arrays) {
  constexpr uint64_t kAhead = 32;  // a power of two
  // A uniform-enough index in [0, bound): the high half of random * bound.
  const auto below = [](uint64_t random, uint64_t bound) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(random) * bound) >> 64);
  };
  const auto swap_at = [&](uint64_t i, uint64_t j) { (std::swap(arrays[i], arrays[j]), ...); };
  SplitMix64 rng = BucketGenerator(seed, bucket);
  const uint64_t n = std::min({uint64_t{arrays.size()}...});
  uint64_t i = n == 0 ? 0 : n - 1;  // the next step swaps element i
  if (i <= kAhead) {
    for (; i >= 1; --i) swap_at(i, below(rng.Next(), i + 1));
    return;
  }
  uint64_t ahead[kAhead];  // the partners of steps i, i-1, ..., i-kAhead+1
  for (uint64_t k = 0; k < kAhead; ++k) {
    ahead[k] = below(rng.Next(), i - k + 1);
    (__builtin_prefetch(arrays.data() + ahead[k], 1), ...);
  }
  uint64_t slot = 0;  // step i's partner
  for (; i > kAhead; --i, slot = (slot + 1) % kAhead) {
    const uint64_t j = ahead[slot];
    ahead[slot] = below(rng.Next(), i - kAhead + 1);  // step i-kAhead's
    (__builtin_prefetch(arrays.data() + ahead[slot], 1), ...);
    swap_at(i, j);
  }
  for (; i >= 1; --i, slot = (slot + 1) % kAhead) swap_at(i, ahead[slot]);
}

// Shuffles `ids` in place by the Fisher-Yates above with BucketGenerator(seed,
// bucket).
inline void ShuffleBucket(std::span<int64_t> ids, uint64_t seed, uint64_t bucket) {
  ShuffleTogether(seed, bucket, ids);
}

}  // namespace dsanalyze
