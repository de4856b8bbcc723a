#include "sort/local_sort.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "util/huge_pages.h"
#include "util/work_split.h"
#include "util/worker_thread.h"

namespace dsanalyze {
namespace {

// Runs fn(t, begin, end) for t in [0, threads) over a split of [0, n).
template <class F>
void ParallelChunks(uint64_t n, unsigned threads, F&& fn) {
  if (threads <= 1 || n < (1u << 16)) {
    fn(0u, uint64_t{0}, n);
    return;
  }
  std::vector<WorkerThread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    const SampleRange r = SplitRange({0, n}, threads, t);
    pool.push_back(StartWorkerThread([&fn, t, r] { fn(t, r.begin, r.end); }));
  }
  for (auto& th : pool) th.join();
}

// The scatter stages each bucket's items in a 64-byte line of its own and
// writes a full line at once with non-temporal stores. Why: with thousands of
// buckets (the seed benchmark's 10^4 values) a plain scatter writes every item
// to a different cache line, each fetched from memory before the store and
// evicted before its next item arrives; measured on the 2-core VM at 2*10^8
// keys, a 14-bit pass took 11.5 ns a key plainly and 4.1 ns staged.
template <class T>
struct Line {
  static constexpr size_t kItems = 64 / sizeof(T);
  alignas(64) T items[kItems];
};

// The slot of dst[p] in its cache line.
template <class T>
inline size_t SlotOf(const T* dst, uint64_t p) {
  return (reinterpret_cast<uintptr_t>(dst + p) / sizeof(T)) % Line<T>::kItems;
}

// Copies positions [from, to) of one cache line of dst from its staged line.
template <class T>
inline void StorePart(const Line<T>& line, T* dst, uint64_t from, uint64_t to) {
  for (uint64_t q = from; q < to; ++q) dst[q] = line.items[SlotOf(dst, q)];
}

// Stores a whole staged line to the 64-byte aligned `out`, bypassing the
// cache; StreamFence orders the streamed lines before what follows (a thread
// calls it before it is joined).
#if defined(__SSE2__)
template <class T>
inline void StoreLine(const Line<T>& line, T* out) {
  const auto* from = reinterpret_cast<const __m128i*>(line.items);
  auto* to = reinterpret_cast<__m128i*>(out);
  for (size_t j = 0; j < sizeof(Line<T>) / sizeof(__m128i); ++j)
    _mm_stream_si128(to + j, _mm_load_si128(from + j));
}
inline void StreamFence() { _mm_sfence(); }
#else
template <class T>
inline void StoreLine(const Line<T>& line, T* out) {
  std::memcpy(out, line.items, sizeof(Line<T>));
}
inline void StreamFence() {}
#endif

// Writes item(i).second for i in [b, e) to dst[pos[item(i).first]++], in
// order. A cache line is streamed out only when all of it is this chunk's:
// the lines a bucket shares with its neighbours (or with another thread's
// chunk of the same bucket) get plain stores of this chunk's positions alone.
template <class T, class Item>
void ScatterChunk(uint64_t b, uint64_t e, size_t buckets, Item& item, uint64_t* pos, T* dst) {
  constexpr size_t kItems = Line<T>::kItems;
  const std::unique_ptr<Line<T>[]> lines(new Line<T>[buckets]);
  const std::vector<uint64_t> first(pos, pos + buckets);
  for (uint64_t i = b; i < e; ++i) {
    const auto [d, x] = item(i);
    const uint64_t p = pos[d]++;
    const size_t slot = SlotOf(dst, p);
    lines[d].items[slot] = x;
    if (slot != kItems - 1) continue;
    if (p + 1 >= first[d] + kItems) {
      StoreLine(lines[d], dst + p + 1 - kItems);
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

// One stable counting pass: item(i) = (bucket < buckets, element) for i in
// [0, n), elements written to dst bucket by bucket. Per-thread histograms
// keep it stable and deterministic. `totals`, if given, receives each
// bucket's count.
template <class T, class Item>
void CountingPass(uint64_t n, size_t buckets, unsigned threads, Item&& item, T* dst,
                  std::vector<uint64_t>* totals = nullptr) {
  threads = (threads <= 1 || n < (1u << 16)) ? 1 : threads;
  std::vector<std::vector<uint64_t>> hist(threads, std::vector<uint64_t>(buckets, 0));
  ParallelChunks(n, threads, [&](unsigned t, uint64_t b, uint64_t e) {
    uint64_t* h = hist[t].data();
    for (uint64_t i = b; i < e; ++i) ++h[item(i).first];
  });
  if (totals) totals->assign(buckets, 0);
  uint64_t sum = 0;
  for (size_t d = 0; d < buckets; ++d)
    for (unsigned t = 0; t < threads; ++t) {
      const uint64_t c = hist[t][d];
      if (totals) (*totals)[d] += c;
      hist[t][d] = sum;
      sum += c;
    }
  ParallelChunks(n, threads, [&](unsigned t, uint64_t b, uint64_t e) {
    ScatterChunk(b, e, buckets, item, hist[t].data(), dst);
  });
}

// A counting pass of keys on the digit (key >> shift) & mask.
template <class Load>
void KeyPass(uint64_t n, unsigned shift, uint64_t mask, unsigned threads, Load&& load,
             uint64_t* dst) {
  auto item = [&](uint64_t i) {
    const uint64_t k = load(i);
    return std::pair<uint64_t, uint64_t>((k >> shift) & mask, k);
  };
  CountingPass(n, mask + 1, threads, item, dst);
}

// Each values[i] - value_min as a 16-bit offset (the caller checked the range).
std::vector<uint16_t> ValueOffsets(const std::vector<int64_t>& values, int64_t value_min,
                                   unsigned threads) {
  const uint64_t n = values.size();
  std::vector<uint16_t> offsets = HugePageVector<uint16_t>(n);
  ParallelChunks(n, threads, [&](unsigned, uint64_t b, uint64_t e) {
    for (uint64_t i = b; i < e; ++i)
      offsets[i] = static_cast<uint16_t>(static_cast<uint64_t>(values[i]) -
                                         static_cast<uint64_t>(value_min));
  });
  return offsets;
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
  const std::vector<uint16_t> offsets = ValueOffsets(values, codec.layout.value_min, threads);
  std::vector<int64_t>().swap(values);
  std::vector<uint64_t> keys = HugePageVector<uint64_t>(n);
  auto encode = [&](uint64_t i) {
    return codec.Encode(static_cast<int64_t>(value_min + offsets[i]),
                        first_id + static_cast<int64_t>(i));
  };
  const uint64_t mask = (uint64_t{1} << codec.layout.value_bits) - 1;
  KeyPass(n, codec.layout.id_bits, mask, threads, encode, keys.data());
  return keys;
}

// Shrinks the n int64 values at `base` to 16-bit offsets from value_min in
// place: offset i ends up at byte 2i. Each thread shrinks its own chunk
// [b, e) to the chunk's start, which is safe in order: offset i goes to byte
// 8b + 2(i - b), at or below value i's first byte (read just before) and
// below every later value's. Then the chunks slide down, in order, to meet.
// Through memcpy, so no pointer of another type aliases the values. Why in
// place: a separate offsets array is fresh memory, which costs more to fault
// in on a VM than the pass (docs/benchmarks.md).
void ShrinkToOffsets(std::byte* base, uint64_t n, int64_t value_min, unsigned threads) {
  threads = (threads <= 1 || n < (1u << 16)) ? 1 : threads;
  ParallelChunks(n, threads, [&](unsigned, uint64_t b, uint64_t e) {
    std::byte* to = base + 8 * b;
    for (uint64_t i = b; i < e; ++i) {
      int64_t v;
      std::memcpy(&v, base + 8 * i, sizeof(v));
      const auto o =
          static_cast<uint16_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(value_min));
      std::memcpy(to + 2 * (i - b), &o, sizeof(o));
    }
  });
  for (unsigned t = 1; t < threads; ++t) {
    const SampleRange r = SplitRange({0, n}, threads, t);
    std::memmove(base + 2 * r.begin, base + 8 * r.begin, 2 * (r.end - r.begin));
  }
}

// Calls f(ids), `dst` as an array of the unsigned type of id_bytes bytes.
template <class F>
void WithIdType(size_t id_bytes, void* dst, F&& f) {
  switch (id_bytes) {
    case 1:
      f(static_cast<uint8_t*>(dst));
      break;
    case 2:
      f(static_cast<uint16_t*>(dst));
      break;
    case 4:
      f(static_cast<uint32_t*>(dst));
      break;
    default:
      f(static_cast<uint64_t*>(dst));
  }
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
  KeyPass(n, lo, mask, threads, encode, keys.data());
  for (unsigned p = 1; p < passes; ++p) {
    uint64_t* src = p % 2 ? keys.data() : scratch;
    uint64_t* dst = p % 2 ? scratch : keys.data();
    KeyPass(
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
    KeyPass(
        n, from + p * digit, mask, threads, [src](uint64_t i) { return src[i]; }, scratch->data());
    keys->swap(*scratch);
  }
}

void SortKeys(std::vector<WideKey>* keys, const WideKey& /*lo*/, const WideKey& /*hi*/,
              unsigned /*sorted_low_bits*/, unsigned /*threads*/,
              std::vector<WideKey>* /*scratch*/) {
  std::sort(keys->begin(), keys->end());
}

IdGroups GroupIdsByValue(std::vector<int64_t>&& values, int64_t first_id, int64_t value_min,
                         size_t buckets, size_t id_bytes, unsigned threads) {
  IdGroups g;
  g.value_min = value_min;
  g.id_bytes = id_bytes;
  const uint64_t n = values.size();
  g.storage = std::move(values);
  std::byte* base = reinterpret_cast<std::byte*>(g.storage.data());
  ShrinkToOffsets(base, n, value_min, threads);
  const auto* offsets = reinterpret_cast<const uint16_t*>(base);
  // The ids go after the offsets, 64-byte aligned, when they fit there.
  g.ids_at = (2 * n + 63) / 64 * 64;
  if (n > 0 && g.ids_at + id_bytes * n > 8 * n) {
    g.wide_ids = HugePageVector<int64_t>((id_bytes * n + 7) / 8);
    g.ids_at = 0;
  }
  void* dst = const_cast<std::byte*>(g.bytes());
  auto group = [&]<class T>(T* ids) {
    auto item = [&](uint64_t i) {
      return std::pair<uint64_t, T>(offsets[i], static_cast<T>(first_id + static_cast<int64_t>(i)));
    };
    CountingPass(n, buckets, threads, item, ids, &g.counts);
  };
  WithIdType(id_bytes, dst, group);
  return g;
}

void ScatterIds(std::span<const uint16_t> offsets, std::span<const uint32_t> at, uint16_t lo,
                int64_t first_id, size_t id_bytes, std::vector<uint64_t>* pos, std::byte* dst) {
  auto scatter = [&]<class T>(T* out) {
    auto item = [&](uint64_t i) {
      const uint64_t index = at.empty() ? i : at[i];
      return std::pair<uint64_t, T>(static_cast<uint16_t>(offsets[i] - lo),
                                    static_cast<T>(first_id + static_cast<int64_t>(index)));
    };
    ScatterChunk(0, offsets.size(), pos->size(), item, pos->data(), out);
  };
  WithIdType(id_bytes, dst, scatter);
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
