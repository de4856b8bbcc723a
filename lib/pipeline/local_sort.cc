#include "pipeline/local_sort.h"

#include <algorithm>
#include <bit>
#include <thread>

#include "util/huge_pages.h"
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
    pool.emplace_back([&fn, t, r] { fn(t, r.begin, r.end); });
  }
  for (auto& th : pool) th.join();
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
    uint64_t* pos = hist[t].data();
    for (uint64_t i = b; i < e; ++i) {
      const uint64_t k = load(i);
      dst[pos[(k >> shift) & mask]++] = k;
    }
  });
}

}  // namespace

std::vector<uint64_t> SortPairs(std::vector<int64_t>&& values, const LocalIds& ids,
                                const KeyCodec<uint64_t>& codec, unsigned threads) {
  const uint64_t n = values.size();
  std::vector<uint64_t> keys = HugePageVector<uint64_t>(n);
  const unsigned lo = ids.consecutive() ? std::min(codec.layout.id_bits, 64u) : 0;
  const unsigned hi = std::min(codec.layout.total_bits(), 64u);
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
              unsigned threads) {
  const uint64_t n = keys->size();
  // Every key agrees with lo and hi above their highest differing bit.
  const unsigned top = static_cast<unsigned>(std::bit_width(lo ^ hi));
  const unsigned from = std::min(sorted_low_bits, top);
  if (n < 2 || top <= from) return;
  const unsigned passes = (top - from + 15) / 16;
  const unsigned digit = (top - from + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << digit) - 1;
  std::vector<uint64_t> scratch = HugePageVector<uint64_t>(n);
  for (unsigned p = 0; p < passes; ++p) {
    const uint64_t* src = keys->data();
    CountingPass(
        n, from + p * digit, mask, threads, [src](uint64_t i) { return src[i]; }, scratch.data());
    keys->swap(scratch);
  }
}

void SortKeys(std::vector<WideKey>* keys, const WideKey& /*lo*/, const WideKey& /*hi*/,
              unsigned /*sorted_low_bits*/, unsigned /*threads*/) {
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
