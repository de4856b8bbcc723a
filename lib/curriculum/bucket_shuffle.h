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

#include <cstdint>
#include <span>

#include "util/splitmix64.h"

namespace dsanalyze {

// The generator of bucket `bucket` under `seed`: state Mix(Mix(seed) + bucket).
inline SplitMix64 BucketGenerator(uint64_t seed, uint64_t bucket) {
  return SplitMix64(SplitMix64::Mix(SplitMix64::Mix(seed) + bucket));
}

// Shuffles `ids` in place by the Fisher-Yates above with BucketGenerator(seed,
// bucket). Draws and swaps in the order the specification gives; the swap
// partners of a batch of steps are prefetched first, since a bucket of 1M ids
// (8 MB) does not fit in the closer caches.
void ShuffleBucket(std::span<int64_t> ids, uint64_t seed, uint64_t bucket);

}  // namespace dsanalyze
