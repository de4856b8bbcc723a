#include "metrics/word_sums.h"

// GCC 12's AVX-512 intrinsics start from an unset register (GCC bug 105593):
// its warnings about them are off for the header's own lines only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>

// Compiles a function for AVX-512F, whatever the build's target: it runs only
// where HaveAvx512Gathers() says the CPU has it.
#define DSA_AVX512 __attribute__((target("avx512f")))

namespace dsanalyze {
namespace {

// 16 ids as 32-bit indices.
DSA_AVX512 __m512i LoadIds16(const uint16_t* ids) {
  return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids)));
}
DSA_AVX512 __m512i LoadIds16(const uint32_t* ids) { return _mm512_loadu_si512(ids); }

// Gathers the words of 16 ids and adds their low and high 32-bit halves to
// the lanes of `low` and `high`.
DSA_AVX512 inline void AddGathered(__m512i idx, const uint64_t* words, __m512i* low,
                                   __m512i* high) {
  const __m512i low_half = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i a = _mm512_i32gather_epi64(_mm512_castsi512_si256(idx), words, 8);
  const __m512i b = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(idx, 1), words, 8);
  *low = _mm512_add_epi64(
      *low, _mm512_add_epi64(_mm512_and_si512(a, low_half), _mm512_and_si512(b, low_half)));
  *high =
      _mm512_add_epi64(*high, _mm512_add_epi64(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)));
}

// The sum AddGathered's lanes hold.
DSA_AVX512 inline Units LaneSums(__m512i low, __m512i high) {
  return Units{static_cast<uint64_t>(_mm512_reduce_add_epi64(low))} +
         (Units{static_cast<uint64_t>(_mm512_reduce_add_epi64(high))} << 32);
}

DSA_AVX512 Units SumWordsGathered(const uint32_t* ids, uint64_t n, const uint64_t* words) {
  __m512i low = _mm512_setzero_si512(), high = low;  // per lane: sums of the words' halves
  uint64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512i idx = LoadIds16(ids + k);
    AddGathered(idx, words, &low, &high);
  }
  // Each lane holds at most n / 8 halves below 2^32: no lane wraps.
  return LaneSums(low, high) + SumWordsScalar(ids + k, n - k, words);
}

}  // namespace

DSA_AVX512 std::optional<Units> SumWordsAvx512UpTo(const uint16_t* ids, uint64_t n,
                                                   const uint64_t* words, uint32_t limit) {
  constexpr uint64_t kLine = 32;  // ids a cache line
  __m512i low = _mm512_setzero_si512(), high = low, top = low;
  uint64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    if (k % kLine == 0) __builtin_prefetch(ids + k + kTokenPrefetchBytes / sizeof(uint16_t));
    const __m512i idx = LoadIds16(ids + k);
    top = _mm512_max_epu32(top, idx);
    AddGathered(idx, words, &low, &high);
  }
  uint32_t most = _mm512_reduce_max_epu32(top);
  for (uint64_t j = k; j < n; ++j) most = std::max<uint32_t>(most, ids[j]);
  if (most > limit) return std::nullopt;
  return LaneSums(low, high) + SumWordsScalar(ids + k, n - k, words);
}

bool HaveAvx512Gathers() {
  static const bool have = __builtin_cpu_supports("avx512f");
  return have;
}

Units SumWordsAvx512(const uint32_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(ids, n, words);
}
Units SumWordsAvx512(const int32_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(reinterpret_cast<const uint32_t*>(ids), n, words);
}

}  // namespace dsanalyze
