#include "pipeline/local_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/huge_pages.h"
#include "util/interrupt.h"
#include "util/work_split.h"

namespace dsanalyze {
namespace {

// Runs fn(t, begin, end) for t in [0, threads) over a split of [0, n).
template <class F>
void ParallelChunks(uint64_t n, unsigned threads, F&& fn) {
  if (threads <= 1 || n < (1u << 16)) {
    fn(0u, uint64_t{0}, n);
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const SampleRange r = SplitRange({0, n}, threads, t);
    pool.push_back(StartWorkerThread([&fn, t, r] { fn(t, r.begin, r.end); }));
  }
  for (auto& th : pool) th.join();
}

// The scatter stages each bucket's keys in a 64-byte line of its own and
// writes a full line at once with non-temporal stores. Why: with thousands of
// buckets (the seed benchmark's 10^4 values) a plain scatter writes every key
// to a different cache line, each fetched from memory before the store and
// evicted before its next key arrives; measured on the 2-core VM at 2*10^8
// keys, a 14-bit pass took 11.5 ns a key plainly and 4.1 ns staged.
constexpr size_t kLineKeys = 64 / sizeof(uint64_t);
struct Line {
  alignas(64) uint64_t keys[kLineKeys];
};

// The slot of dst[p] in its cache line.
inline size_t SlotOf(const uint64_t* dst, uint64_t p) {
  return (reinterpret_cast<uintptr_t>(dst + p) / sizeof(uint64_t)) % kLineKeys;
}

// Copies positions [from, to) of one cache line of dst from its staged line.
inline void StorePart(const Line& line, uint64_t* dst, uint64_t from, uint64_t to) {
  for (uint64_t q = from; q < to; ++q) dst[q] = line.keys[SlotOf(dst, q)];
}

// Stores a whole staged line to the 64-byte aligned `out`, bypassing the
// cache; StreamFence orders the streamed lines before what follows (a thread
// calls it before it is joined).
#if defined(__SSE2__)
inline void StoreLine(const Line& line, uint64_t* out) {
  const auto* from = reinterpret_cast<const __m128i*>(line.keys);
  auto* to = reinterpret_cast<__m128i*>(out);
  for (size_t j = 0; j < sizeof(Line) / sizeof(__m128i); ++j)
    _mm_stream_si128(to + j, _mm_load_si128(from + j));
}
inline void StreamFence() { _mm_sfence(); }
#else
inline void StoreLine(const Line& line, uint64_t* out) {
  std::memcpy(out, line.keys, sizeof(Line));
}
inline void StreamFence() {}
#endif

// Writes src[b, e) (through `load`) to dst[pos[digit]++], in order. A cache
// line is streamed out only when all of it is this chunk's: the lines a
// bucket shares with its neighbours (or with another thread's chunk of the
// same bucket) get plain stores of this chunk's positions alone.
template <class Load>
void ScatterChunk(uint64_t b, uint64_t e, unsigned shift, uint64_t mask, Load& load, uint64_t* pos,
                  uint64_t* dst) {
  const size_t buckets = mask + 1;
  const std::unique_ptr<Line[]> lines(new Line[buckets]);
  const std::vector<uint64_t> first(pos, pos + buckets);
  for (uint64_t i = b; i < e; ++i) {
    const uint64_t k = load(i);
    const uint64_t d = (k >> shift) & mask;
    const uint64_t p = pos[d]++;
    const size_t slot = SlotOf(dst, p);
    lines[d].keys[slot] = k;
    if (slot != kLineKeys - 1) continue;
    if (p + 1 >= first[d] + kLineKeys) {
      StoreLine(lines[d], dst + p + 1 - kLineKeys);
    } else {
      StorePart(lines[d], dst, first[d], p + 1);
    }
  }
  for (size_t d = 0; d < buckets; ++d) {
    const uint64_t staged = std::min<uint64_t>(SlotOf(dst, pos[d]), pos[d] - first[d]);
    StorePart(lines[d], dst, pos[d] - staged, pos[d]);
  }
  StreamFence();
}

// One stable counting pass on digit (key >> shift) & mask, from src (read
// through `load`) to dst. Per-thread histograms keep it stable and deterministic.
template <class Load>
void CountingPass(uint64_t n, unsigned shift, uint64_t mask, unsigned threads, Load&& load,
                  uint64_t* dst) {
  const size_t buckets = mask + 1;
  threads = (threads <= 1 || n < (1u << 16)) ? 1 : threads;
  std::vector<std::vector<uint64_t>> hist(threads, std::vector<uint64_t>(buckets, 0));
  ParallelChunks(n, threads, [&](unsigned t, uint64_t b, uint64_t e) {
    uint64_t* h = hist[t].data();
    for (uint64_t i = b; i < e; ++i) ++h[(load(i) >> shift) & mask];
  });
  uint64_t sum = 0;
  for (size_t d = 0; d < buckets; ++d)
    for (unsigned t = 0; t < threads; ++t) {
      const uint64_t c = hist[t][d];
      hist[t][d] = sum;
      sum += c;
    }
  ParallelChunks(n, threads, [&](unsigned t, uint64_t b, uint64_t e) {
    ScatterChunk(b, e, shift, mask, load, hist[t].data(), dst);
  });
}

// Consecutive ids and at most 16 value bits: one counting pass on the value
// bits. The values first shrink to 16-bit offsets, and their memory is freed
// before the keys are allocated: the keys take the pages the values just
// left, and the peak is 10 bytes a pair instead of 16. Why: on a VM, the
// kernel zeroing pages that were not in use just before costs more than the
// pass itself (docs/benchmarks.md).
std::vector<uint64_t> SortBySmallValues(std::vector<int64_t>&& values, int64_t first_id,
                                        const KeyCodec<uint64_t>& codec, unsigned threads) {
  const uint64_t n = values.size();
  const uint64_t value_min = static_cast<uint64_t>(codec.layout.value_min);
  std::vector<uint16_t> offsets = HugePageVector<uint16_t>(n);
  ParallelChunks(n, threads, [&](unsigned, uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i)
      offsets[i] = static_cast<uint16_t>(static_cast<uint64_t>(values[i]) - value_min);
  });
  std::vector<int64_t>().swap(values);
  std::vector<uint64_t> keys = HugePageVector<uint64_t>(n);
  auto encode = [&](uint64_t i) {
    return codec.Encode(static_cast<int64_t>(value_min + offsets[i]),
                        first_id + static_cast<int64_t>(i));
  };
  const uint64_t mask = (uint64_t{1} << codec.layout.value_bits) - 1;
  CountingPass(n, codec.layout.id_bits, mask, threads, encode, keys.data());
  return keys;
}

}  // namespace

std::vector<uint64_t> SortPairs(std::vector<int64_t>&& values, const LocalIds& ids,
                                const KeyCodec<uint64_t>& codec, unsigned threads) {
  const uint64_t n = values.size();
  const unsigned lo = ids.consecutive() ? std::min(codec.layout.id_bits, 64u) : 0;
  const unsigned hi = std::min(codec.layout.total_bits(), 64u);
  if (hi > lo && hi - lo <= 16 && ids.consecutive() && n >= 2)
    return SortBySmallValues(std::move(values), ids.first_id, codec, threads);
  std::vector<uint64_t> keys = HugePageVector<uint64_t>(n);
  auto encode = [&](uint64_t i) { return codec.Encode(values[i], ids[i]); };
  if (hi <= lo || n < 2) {
    for (uint64_t i = 0; i < n; ++i) keys[i] = encode(i);
    return keys;
  }
  // An odd number of passes ends in `keys`: values → keys → scratch → keys ...
  unsigned passes = (hi - lo + 15) / 16;
  if (passes % 2 == 0) ++passes;
  const unsigned digit = (hi - lo + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  uint64_t* scratch = reinterpret_cast<uint64_t*>(values.data());
  CountingPass(n, lo, mask, threads, encode, keys.data());
  for (unsigned p = 1; p < passes; ++p) {
    uint64_t* src = p % 2 ? keys.data() : scratch;
    uint64_t* dst = p % 2 ? scratch : keys.data();
    CountingPass(
        n, lo + p * digit, mask, threads, [src](uint64_t i) { return src[i]; }, dst);
  }
  std::vector<int64_t>().swap(values);
  return keys;
}

void SortKeys(std::vector<uint64_t>* keys, uint64_t lo, uint64_t hi, unsigned sorted_low_bits,
              unsigned threads, std::vector<uint64_t>* scratch) {
  const uint64_t n = keys->size();
  // Every key agrees with lo and hi above their highest differing bit.
  const unsigned top = static_cast<unsigned>(std::bit_width(lo ^ hi));
  const unsigned from = std::min(sorted_low_bits, top);
  if (n < 2 || top <= from) return;
  const unsigned passes = (top - from + 15) / 16;
  const unsigned digit = (top - from + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  ReserveReusing(*scratch, n);
  scratch->resize(n);
  for (unsigned p = 0; p < passes; ++p) {
    const uint64_t* src = keys->data();
    CountingPass(
        n, from + p * digit, mask, threads, [src](uint64_t i) { return src[i]; }, scratch->data());
    keys->swap(*scratch);
  }
}

void SortKeys(std::vector<WideKey>* keys, const WideKey& /*lo*/, const WideKey& /*hi*/,
              unsigned /*sorted_low_bits*/, unsigned /*threads*/,
              std::vector<WideKey>* /*scratch*/) {
  std::sort(keys->begin(), keys->end());
}

std::vector<WideKey> SortPairs(std::vector<int64_t>&& values, const LocalIds& ids,
                               const KeyCodec<WideKey>& codec, unsigned /*threads*/) {
  std::vector<WideKey> keys = HugePageVector<WideKey>(values.size());
  for (size_t i = 0; i < values.size(); ++i) keys[i] = codec.Encode(values[i], ids[i]);
  std::vector<int64_t>().swap(values);
  if (ids.consecutive()) {
    std::stable_sort(keys.begin(), keys.end(),
                     [](const WideKey& a, const WideKey& b) { return a.hi < b.hi; });
  } else {
    std::sort(keys.begin(), keys.end());
  }
  return keys;
}

}  // namespace dsanalyze
