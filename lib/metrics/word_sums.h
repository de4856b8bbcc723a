// Exact sums of one-word table entries over token ids: vocab_rarity's inner
// loop (vocab_metrics.cc), the sum of words[ids[k]] for k < n as a 128-bit
// integer. Integer sums are exact, so every path below gives the same bits
// whatever the order it adds in; the vectorised one is only faster.
//
// Pure functions; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "metrics/exact_sum.h"

namespace dsanalyze {

// Tokens come from memory at every 4 KiB page, where the hardware prefetcher
// stops: the first loop over them asks for the cache line this far ahead of
// the one it reads (2 KiB: 25% off the counting loop on 1 GB of mapped tokens).
inline constexpr uint64_t kTokenPrefetchBytes = 2048;

// The portable loop: two 128-bit add chains side by side. `ids` must index
// `words` (vocabulary ids, checked by the caller).
template <class T>
Units SumWordsScalar(const T* ids, uint64_t n, const uint64_t* words) {
  using U = std::make_unsigned_t<T>;
  Units even = 0, odd = 0;
  uint64_t k = 0;
  for (; k + 2 <= n; k += 2) {
    even += words[static_cast<U>(ids[k])];
    odd += words[static_cast<U>(ids[k + 1])];
  }
  if (k < n) even += words[static_cast<U>(ids[k])];
  return even + odd;
}

// True if this CPU runs SumWordsAvx512 (AVX-512F); checked once.
bool HaveAvx512Gathers();

// The same sum with AVX-512 gathers of 8 words at a time, each word's two
// 32-bit halves summed in their own 64-bit lanes (exact for n < 2^32). Ids in
// [0, 2^31). Call only where HaveAvx512Gathers().
Units SumWordsAvx512(const uint32_t* ids, uint64_t n, const uint64_t* words);
Units SumWordsAvx512(const int32_t* ids, uint64_t n, const uint64_t* words);

// For 16-bit ids, the check and the sum in one pass: the sum if every id (as
// uint16) is at most `limit`, else nullopt. `words` must have 2^16 entries, so
// that any id can be gathered before it is checked. Prefetches
// (kTokenPrefetchBytes). Call only where HaveAvx512Gathers().
std::optional<Units> SumWordsAvx512UpTo(const uint16_t* ids, uint64_t n, const uint64_t* words,
                                        uint32_t limit);

// SumWordsAvx512 where the CPU has it and the ids have 4 bytes, else
// SumWordsScalar. n < 2^32.
template <class T>
Units SumWords(const T* ids, uint64_t n, const uint64_t* words) {
  if constexpr (sizeof(T) == 4) {
    if (HaveAvx512Gathers()) return SumWordsAvx512(ids, n, words);
  }
  return SumWordsScalar(ids, n, words);
}

}  // namespace dsanalyze
