#include "metrics/word_sums.h"

// GCC 12's AVX-512 intrinsics start from an unset register (GCC bug 105593):
// its warnings about them are off for the header's own lines only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

namespace dsanalyze {
namespace {

// 16 ids, widened to 32-bit indices.
__attribute__((target("avx512f"))) __m512i LoadIds16(const uint16_t* ids) {
  return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(ids)));
}
__attribute__((target("avx512f"))) __m512i LoadIds16(const uint32_t* ids) {
  return _mm512_loadu_si512(ids);
}

// U is uint16_t or uint32_t: the ids as unsigned (non-negative ids read the same).
template <class U>
__attribute__((target("avx512f"))) Units SumWordsGathered(const U* ids, uint64_t n,
                                                          const uint64_t* words) {
  const __m512i low_half = _mm512_set1_epi64(0xFFFFFFFF);
  __m512i low = _mm512_setzero_si512(), high = low;  // per lane: sums of the words' halves
  uint64_t k = 0;
  for (; k + 16 <= n; k += 16) {
    const __m512i idx = LoadIds16(ids + k);
    const __m512i a = _mm512_i32gather_epi64(_mm512_castsi512_si256(idx), words, 8);
    const __m512i b = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(idx, 1), words, 8);
    low = _mm512_add_epi64(
        low, _mm512_add_epi64(_mm512_and_si512(a, low_half), _mm512_and_si512(b, low_half)));
    high = _mm512_add_epi64(high,
                            _mm512_add_epi64(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)));
  }
  // Each lane holds at most n / 8 halves below 2^32: no lane wraps.
  const Units sum = Units{static_cast<uint64_t>(_mm512_reduce_add_epi64(low))} +
                    (Units{static_cast<uint64_t>(_mm512_reduce_add_epi64(high))} << 32);
  return sum + SumWordsScalar(ids + k, n - k, words);
}

}  // namespace

bool HaveAvx512Gathers() {
  static const bool have = __builtin_cpu_supports("avx512f");
  return have;
}

Units SumWordsAvx512(const uint16_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(ids, n, words);
}
Units SumWordsAvx512(const int16_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(reinterpret_cast<const uint16_t*>(ids), n, words);
}
Units SumWordsAvx512(const uint32_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(ids, n, words);
}
Units SumWordsAvx512(const int32_t* ids, uint64_t n, const uint64_t* words) {
  return SumWordsGathered(reinterpret_cast<const uint32_t*>(ids), n, words);
}

}  // namespace dsanalyze
