// dsanalyze_token_quality_bench: the token-quality metrics' cost a token, and
// the floor under it (issue 47's case Q, docs/benchmarks.md). Not a test; one
// thread, no MPI, the samples in batches of 1024 as the map hands them over.
//
//   dsanalyze_token_quality_bench PREFIX [ROUNDS]
//       PREFIX.idx/.bin a uint16 token file (`dsanalyze generate`); prints, for
//       each pass over every token, the fastest of ROUNDS rounds (default 7)
//       in CPU ns a token:
//         read     sum the tokens: what any pass over them costs;
//         count    the floor of counting: ++count[id] in a table of every id,
//                  the ids a sample touched reset after it (what
//                  unique_token_ratio and token_entropy cannot do without);
//         floor    count, plus one store a window of 3 tokens into a slot of
//                  a per-sample table at its hash (the least an n-gram count
//                  does: no load, no comparison, no second probe);
//         floor.l1 count, plus one bit a window tested and set in an 8 KiB
//                  bitmap at the window's hash (the first-level cache holds
//                  it), the window loaded whole from the tokens (no chain
//                  from one window to the next): the least any per-window
//                  test costs, though it finds candidates only;
//         simd.count  count's work with AVX-512 (16 tokens a step: conflicts
//                  among them detected, counts gathered and scattered), with
//                  count's answer; only where the CPU has AVX-512F/CD/BW/VL
//                  and VPOPCNTDQ;
//         d.*, h.*, radix   per-sample tables sized to the sample, the try
//                  after the floor (TablePasses): the full counting work of
//                  the three metrics but the log2s, in brackets Σ distinct +
//                  repeated windows (equal for every pass with windows);
//         unique, entropy, ngram   each metric alone (Metric::Compute);
//         all3     the three in one shared pass, as case Q runs them.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "format/indexed_dataset.h"
#include "metrics/builtin_metrics.h"

namespace {

using dsanalyze::SampleBatch;

constexpr size_t kBatch = 1024;

// The file's samples as the map's batches: offsets into the mapped elements.
struct Batches {
  const std::byte* elements = nullptr;
  std::vector<std::vector<uint64_t>> offsets;  // each kBatch + 1 entries at most
  uint64_t tokens = 0;

  SampleBatch Get(size_t b) const {
    SampleBatch batch;
    batch.first = b * kBatch;
    batch.dtype = dsanalyze::DType::kU16;
    batch.elements = elements;
    batch.offsets = offsets[b];
    return batch;
  }
};

Batches BatchesOf(const dsanalyze::IndexedDataset& data) {
  Batches out;
  out.elements = data.elements().data;
  for (uint64_t first = 0; first < data.num_rows(); first += kBatch) {
    std::vector<uint64_t> offsets;
    for (uint64_t i = first; i <= std::min<uint64_t>(first + kBatch, data.num_rows()); ++i)
      offsets.push_back(data.row_begin(i));
    out.offsets.push_back(std::move(offsets));
  }
  out.tokens = data.row_begin(data.num_rows());
  return out;
}

// The thread's CPU time in ns: on a shared machine, wall time would count the
// time other processes held the core.
double CpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The fastest of `rounds` calls of pass(), in CPU ns a token.
double NsPerToken(const Batches& batches, int rounds, const std::function<void()>& pass) {
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const double t0 = CpuNs();
    pass();
    best = std::min(best, (CpuNs() - t0) / static_cast<double>(batches.tokens));
  }
  return best;
}

// The floor's per-sample work (see the header): the dense count, and with
// `windows` one store a window of 3 at its hash in a table 32 slots a window.
struct Floor {
  std::vector<uint32_t> count = std::vector<uint32_t>(65536, 0);
  std::vector<uint16_t> touched = std::vector<uint16_t>(65537 + 16);
  std::vector<uint64_t> slots;
  uint64_t sink = 0;  // keeps the work observable

  template <bool kWindows>
  void Sample(const uint16_t* t, uint64_t n) {
    const int bits = std::bit_width(n) + 5;
    if (kWindows && slots.size() < (size_t{1} << bits)) slots.resize(size_t{1} << bits);
    uint32_t* c = count.data();
    uint16_t* seen = touched.data();
    uint64_t* slot = slots.data();
    uint64_t distinct = 0, key = 0;
    for (uint64_t k = 0; k < n; ++k) {
      seen[distinct] = t[k];
      distinct += c[t[k]]++ == 0;
      if constexpr (kWindows) {
        key = ((key << 16) | t[k]) & 0xFFFFFFFFFFFFu;
        if (k >= 2) slot[(key * 0x9E3779B97F4A7C15u) >> (64 - bits)] = key;
      }
    }
    sink += Empty(distinct);
  }

  // Zeroes the counts of the `distinct` ids in `touched`; returns their sum
  // (the sample's tokens), which every pass adds to `sink`.
  uint64_t Empty(uint64_t distinct) {
    uint64_t total = 0;
    for (uint64_t k = 0; k < distinct; ++k) {
      total += count[touched[k]];
      count[touched[k]] = 0;
    }
    return total;
  }

  // floor.l1: the count, and a bit a window of 3 in `bitmap` (cleared after).
  void SampleBits(const uint16_t* t, uint64_t n) {
    uint32_t* c = count.data();
    uint16_t* seen = touched.data();
    uint64_t* bits = bitmap.data();
    uint64_t distinct = 0, key = 0, hits = 0;
    for (uint64_t k = 0; k < n; ++k) {
      seen[distinct] = t[k];
      distinct += c[t[k]]++ == 0;
      if (k >= 3) {
        std::memcpy(&key, t + k - 3, sizeof key);  // t[k-3..k], the first in the low bits
        key >>= 16;                                // t[k-2..k]
      } else {
        key = (key >> 16) | uint64_t{t[k]} << 32;  // packed the same way
      }
      const uint64_t h = (key * 0x9E3779B97F4A7C15u) >> 48;
      const uint64_t word = bits[h >> 6];
      hits += k >= 2 ? (word >> (h & 63)) & 1 : 0;
      bits[h >> 6] = word | uint64_t{1} << (h & 63);
    }
    std::fill(bitmap.begin(), bitmap.end(), 0);
    sink += Empty(distinct) + hits;
  }
  std::vector<uint64_t> bitmap = std::vector<uint64_t>(1024, 0);  // 2^16 bits
};

#define DSA_BENCH_AVX512 \
  __attribute__((target("avx512f,avx512cd,avx512bw,avx512vl,avx512vpopcntdq")))

bool HaveAvx512Count() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
         __builtin_cpu_supports("avx512vpopcntdq");
}

// simd.count: Floor's count 16 tokens a step. A lane's new count is its old
// count (gathered) plus the equal lanes before it (their conflict bits) plus
// one; only the last of equal lanes scatters it. A lane is a new token when
// that sum before the one is 0; new tokens go to `touched` compressed.
DSA_BENCH_AVX512 void SimdCountSample(Floor& f, const uint16_t* t, uint64_t n) {
  uint32_t* c = f.count.data();
  uint16_t* seen = f.touched.data();
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i lane_bit = _mm512_sllv_epi32(
      one, _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  uint64_t distinct = 0;
  for (uint64_t k = 0; k < n; k += 16) {
    const __mmask16 m = n - k >= 16 ? 0xFFFF : static_cast<__mmask16>((1u << (n - k)) - 1);
    const __m512i id = _mm512_maskz_cvtepu16_epi32(m, _mm256_maskz_loadu_epi16(m, t + k));
    const __m512i conflict = _mm512_maskz_conflict_epi32(m, id);  // equal lanes before
    __m512i later = conflict;  // OR over the lanes: bit i set if an equal lane follows i
    later = _mm512_or_si512(later, _mm512_maskz_shuffle_i32x4(0xFFFF, later, later, 0x4E));
    later = _mm512_or_si512(later, _mm512_maskz_shuffle_i32x4(0xFFFF, later, later, 0xB1));
    later = _mm512_or_si512(later, _mm512_maskz_shuffle_epi32(0xFFFF, later, _MM_PERM_BADC));
    later = _mm512_or_si512(later, _mm512_maskz_shuffle_epi32(0xFFFF, later, _MM_PERM_CDAB));
    const __mmask16 last = m & ~_mm512_test_epi32_mask(later, lane_bit);
    const __m512i old =
        _mm512_add_epi32(_mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, id, c, 4),
                         _mm512_popcnt_epi32(conflict));
    const __mmask16 fresh = _mm512_mask_cmpeq_epi32_mask(m, old, _mm512_setzero_si512());
    _mm512_mask_i32scatter_epi32(c, last, id, _mm512_add_epi32(old, one), 4);
    // touched has 16 entries of slack past the most distinct a sample has.
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(seen + distinct),
        _mm512_maskz_cvtepi32_epi16(0xFFFF, _mm512_maskz_compress_epi32(fresh, id)));
    distinct += static_cast<uint64_t>(__builtin_popcount(fresh));
  }
  f.sink += f.Empty(distinct);
}

// The try after the floor (docs/benchmarks.md, "Q: per-sample tables in the
// first-level cache"): tables sized to the sample, so that the count and the
// n-gram table of a sample of about 500 tokens fit the 48 KiB first-level cache
// together. One sample's counting, a token at a time (so that two samples can
// be interleaved): the full counting work of the three metrics (distinct
// tokens, the multiset of counts, Σ count over the repeated windows of 3), all
// but the entropy's log2s.
//   kHashed   the tokens counted in an open-addressing table of uint32 slots,
//             token in the top 16 bits over a count in the low 16 (0: empty),
//             at least 2 slots a token, emptied through the list of slots used;
//             else the dense table of every id, as `count`.
//   kPerWindow  the n-gram table's slots a window (0: no windows), as the
//             metrics' table (a 16-bit mark over the packed window).
//   kStoreOnly  one store a window at its hash, as `floor` (no answer).
template <bool kHashed, int kPerWindow, bool kStoreOnly>
class SampleCounter {
 public:
  // One sample's state, by value: kept in registers, where members would be
  // read again after every store to a table (which the compiler cannot tell
  // apart from them).
  struct Cursor {
    const uint16_t* t;
    uint64_t n, distinct, key, repeated, once, more;
    uint32_t cmask;
    int cshift, wshift;
    size_t wmask;
    uint32_t *dense, *hashed;
    uint16_t* touched;
    uint64_t* slots;
  };

  Cursor Start(const uint16_t* t, uint64_t n) {
    const int cbits = std::max(4, static_cast<int>(std::bit_width(2 * n - 1)));
    if (kHashed && hashed_.size() < (size_t{1} << cbits)) hashed_.resize(size_t{1} << cbits);
    int wbits = 0;
    if constexpr (kPerWindow != 0) {
      wbits = std::max(4, static_cast<int>(std::bit_width(kPerWindow * n - 1)));
      if (slots_.size() < (size_t{1} << wbits)) slots_.resize(size_t{1} << wbits);
      epoch_ += 2;
      if (epoch_ + 1 > 65535) std::fill(slots_.begin(), slots_.end(), 0), epoch_ = 2;
    }
    return {t,
            n,
            0,
            0,
            0,
            epoch_ << 48,
            (epoch_ + 1) << 48,
            (1u << cbits) - 1,
            32 - cbits,
            64 - wbits,
            (size_t{1} << wbits) - 1,
            dense_.data(),
            hashed_.data(),
            touched_.data(),
            slots_.data()};
  }
  static void Step(Cursor& c, uint64_t k) {
    const uint32_t id = c.t[k];
    if constexpr (kHashed) {
      uint32_t s = (id * 0x9E3779B1u) >> c.cshift;
      uint32_t v = c.hashed[s];
      // Not `v != 0 && v >> 16 != id`: the compiler makes that two branches,
      // the first (new token or not) a coin toss on text: 4x slower.
      while (uint64_t{v} * ((v >> 16) ^ id) != 0) v = c.hashed[s = (s + 1) & c.cmask];
      c.hashed[s] = (id << 16) | ((v & 0xFFFF) + 1);
      c.touched[c.distinct] = static_cast<uint16_t>(s);
      c.distinct += v == 0;
    } else {
      c.touched[c.distinct] = static_cast<uint16_t>(id);
      c.distinct += c.dense[id]++ == 0;
    }
    if constexpr (kPerWindow != 0) {
      c.key = ((c.key << 16) | id) & 0xFFFFFFFFFFFFu;
      if (k >= 2) Window(c);
    }
  }
  // Σ distinct + repeated. Empties the tables, the counts going through the
  // multiset (lanes as the metrics' CountMultiset), which is then read and
  // emptied by ascending count, as the entropy reads it (without the log2s).
  static uint64_t Finish(const Cursor& c, std::vector<uint64_t>& with_count, uint64_t& sink) {
    uint64_t* m = with_count.data();
    uint64_t most = 0, total = 0;
    for (uint64_t k = 0; k < c.distinct; ++k) {
      uint32_t& entry = kHashed ? c.hashed[c.touched[k]] : c.dense[c.touched[k]];
      const uint64_t count = kHashed ? entry & 0xFFFF : entry;
      // count < 4096 (ShowAll); 1 goes to lane k mod 4, by arithmetic: the
      // compiler makes `count == 1 ? lane : count` a branch, a coin toss.
      ++m[count + uint64_t{count == 1} * (4095 + k % 4)];
      most = std::max(most, count);
      entry = 0;
    }
    for (uint64_t l = 4096; l < 4100; ++l) total += std::exchange(m[l], 0);
    for (uint64_t j = 2; j <= most; ++j)
      if (m[j] != 0) total += j * std::exchange(m[j], 0);
    sink += total;
    return c.distinct + c.repeated;
  }

 private:
  static void Window(Cursor& c) {
    size_t w = (c.key * 0x9E3779B97F4A7C15u) >> c.wshift;
    if (kStoreOnly) return void(c.slots[w] = c.key);
    for (;; w = (w + 1) & c.wmask) {
      const uint64_t x = c.slots[w];
      if (x < c.once) return void(c.slots[w] = c.once | c.key);
      if ((x & 0xFFFFFFFFFFFFu) == c.key) {
        c.repeated += x >= c.more ? 1 : 2;
        return void(c.slots[w] = c.more | c.key);
      }
    }
  }

  uint64_t epoch_ = 0;
  std::vector<uint32_t> dense_ = std::vector<uint32_t>(65536, 0);
  std::vector<uint32_t> hashed_;
  std::vector<uint16_t> touched_ = std::vector<uint16_t>(65537);
  std::vector<uint64_t> slots_;
};

// The sort-based count: the sample's tokens sorted by a two-pass radix sort
// (8 bits a pass), its distinct tokens counted as runs.
struct RadixCount {
  std::vector<uint16_t> a = std::vector<uint16_t>(1 << 16), b = std::vector<uint16_t>(1 << 16);

  uint64_t Sample(const uint16_t* t, uint64_t n) {
    uint32_t low[257] = {}, high[257] = {};
    for (uint64_t k = 0; k < n; ++k) ++low[(t[k] & 255) + 1], ++high[(t[k] >> 8) + 1];
    for (int i = 0; i < 256; ++i) low[i + 1] += low[i], high[i + 1] += high[i];
    for (uint64_t k = 0; k < n; ++k) b[low[t[k] & 255]++] = t[k];
    for (uint64_t k = 0; k < n; ++k) a[high[b[k] >> 8]++] = b[k];
    uint64_t distinct = n != 0;
    for (uint64_t k = 1; k < n; ++k) distinct += a[k] != a[k - 1];
    return distinct;
  }
};

// The passes of SampleCounter and RadixCount, each printed with the fastest
// of `rounds` in CPU ns a token and, in brackets, Σ distinct + repeated over
// the file, which every pass that counts windows must give alike.
struct TablePasses {
  const Batches& batches;
  const uint16_t* tokens;
  int rounds;
  std::vector<uint64_t> with_count = std::vector<uint64_t>(4096 + 4, 0);
  uint64_t answer = 0, sink = 0;

  template <class C>
  void One(C& counter) {
    answer = 0;
    for (const auto& offsets : batches.offsets)
      for (size_t i = 0; i + 1 < offsets.size(); ++i) {
        if (offsets[i + 1] == offsets[i]) continue;
        auto c = counter.Start(tokens + offsets[i], offsets[i + 1] - offsets[i]);
        for (uint64_t k = 0; k < c.n; ++k) C::Step(c, k);
        answer += C::Finish(c, with_count, sink);
      }
  }
  // Two samples a step, each with its own tables, so that the second's
  // memory waits overlap the first's.
  template <class C>
  void Two(C& a, C& b) {
    answer = 0;
    for (const auto& offsets : batches.offsets)
      for (size_t i = 0; i + 1 < offsets.size(); i += 2) {
        const bool pair = i + 2 < offsets.size() && offsets[i + 2] > offsets[i + 1];
        if (offsets[i + 1] == offsets[i]) continue;  // (generate writes no empty sample)
        auto x = a.Start(tokens + offsets[i], offsets[i + 1] - offsets[i]);
        auto y = pair ? b.Start(tokens + offsets[i + 1], offsets[i + 2] - offsets[i + 1]) : x;
        const uint64_t both = pair ? std::min(x.n, y.n) : 0;
        uint64_t k = 0;
        for (; k < both; ++k) C::Step(x, k), C::Step(y, k);
        for (uint64_t j = k; j < x.n; ++j) C::Step(x, j);
        for (uint64_t j = k; pair && j < y.n; ++j) C::Step(y, j);
        answer += C::Finish(x, with_count, sink) + (pair ? C::Finish(y, with_count, sink) : 0);
      }
  }
  void Radix() {
    RadixCount radix;
    answer = 0;
    for (const auto& offsets : batches.offsets)
      for (size_t i = 0; i + 1 < offsets.size(); ++i)
        answer += radix.Sample(tokens + offsets[i], offsets[i + 1] - offsets[i]);
  }
  void Show(const char* name, const std::function<void()>& pass) {
    const double ns = NsPerToken(batches, rounds, pass);
    std::printf("%-8s %.3f   (%llu)\n", name, ns, static_cast<unsigned long long>(answer));
  }
  // d.*: the dense count; h.*: the hashed count; ngK: K slots a window.
  // Returns what keeps the passes' results alive.
  uint64_t ShowAll() {
    for (const auto& offsets : batches.offsets)
      for (size_t i = 0; i + 1 < offsets.size(); ++i)
        if (offsets[i + 1] - offsets[i] >= 4096)
          return std::printf("(no d.*, h.*, radix: a sample of 4096 tokens or more)\n");
    SampleCounter<false, 0, false> d_count;
    SampleCounter<true, 0, false> h_count;
    SampleCounter<false, 4, true> d_store4;
    SampleCounter<false, 32, false> d_ng32, d_ng32b;
    SampleCounter<false, 8, false> d_ng8;
    SampleCounter<false, 4, false> d_ng4;
    SampleCounter<true, 8, false> h_ng8;
    SampleCounter<true, 4, false> h_ng4, h_ng4b;
    Show("d.count", [&] { One(d_count); });
    Show("h.count", [&] { One(h_count); });
    Show("d.store4", [&] { One(d_store4); });
    Show("d.ng32", [&] { One(d_ng32); });
    Show("d.ng8", [&] { One(d_ng8); });
    Show("d.ng4", [&] { One(d_ng4); });
    Show("h.ng8", [&] { One(h_ng8); });
    Show("h.ng4", [&] { One(h_ng4); });
    Show("h.ng4x2", [&] { Two(h_ng4, h_ng4b); });
    Show("d.ng32x2", [&] { Two(d_ng32, d_ng32b); });
    Show("radix", [&] { Radix(); });
    return sink;
  }
};

// A pass calling sample(tokens, n) for each sample of the file.
template <class F>
std::function<void()> EachSample(const Batches& batches, const uint16_t* tokens, F sample) {
  return [&batches, tokens, sample] {
    for (const auto& offsets : batches.offsets)
      for (size_t i = 0; i + 1 < offsets.size(); ++i)
        sample(tokens + offsets[i], offsets[i + 1] - offsets[i]);
  };
}

// Prints count, floor, floor.l1 and simd.count (see the header). Returns what
// keeps the passes' results alive.
uint64_t ShowFloors(const Batches& batches, const uint16_t* tokens, int rounds) {
  Floor floor;
  const auto count =
      EachSample(batches, tokens, [&](auto t, auto n) { floor.Sample<false>(t, n); });
  const auto simd =
      EachSample(batches, tokens, [&](auto t, auto n) { SimdCountSample(floor, t, n); });
  std::printf("count    %.3f\n", NsPerToken(batches, rounds, count));
  std::printf("floor    %.3f\n",
              NsPerToken(batches, rounds, EachSample(batches, tokens, [&](auto t, auto n) {
                           floor.Sample<true>(t, n);
                         })));
  std::printf("floor.l1 %.3f\n",
              NsPerToken(batches, rounds, EachSample(batches, tokens, [&](auto t, auto n) {
                           floor.SampleBits(t, n);
                         })));
  if (!HaveAvx512Count()) return floor.sink;
  const double ns = NsPerToken(batches, rounds, simd);
  // One more pass of each: the Σ over the samples' counts that both add to sink.
  uint64_t before = floor.sink;
  count();
  const uint64_t answer = floor.sink - before;
  before = floor.sink;
  simd();
  std::printf("simd.count %.3f   (%s count's)\n", ns,
              floor.sink - before == answer ? "the same as" : "NOT");
  return floor.sink;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) return std::fprintf(stderr, "usage: %s PREFIX [ROUNDS]\n", argv[0]), 2;
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 7;
  auto data = dsanalyze::IndexedDataset::Open(
      argv[1], dsanalyze::IndexedDataset::Options(dsanalyze::CodeTable::kMegatron, true));
  if (!data.ok()) return std::fprintf(stderr, "%s\n", data.status().message().c_str()), 2;
  if (data->dtype() != dsanalyze::DType::kU16)
    return std::fprintf(stderr, "%s: not uint16 tokens\n", argv[1]), 2;
  const Batches batches = BatchesOf(*data);
  const auto* tokens = reinterpret_cast<const uint16_t*>(batches.elements);

  uint64_t sum = 0;
  const auto read = [&] {
    uint64_t local = 0;
    for (uint64_t k = 0; k < batches.tokens; ++k) local += tokens[k];
    sum += local;
  };
  std::vector<std::unique_ptr<dsanalyze::Metric>> metrics;
  metrics.push_back(dsanalyze::NewUniqueTokenRatioMetric("unique", {}, 1000));
  metrics.push_back(dsanalyze::NewTokenEntropyMetric("entropy", {}, 1000));
  metrics.push_back(dsanalyze::NewRepeatedNgramRatioMetric("ngram", {}, 3, 1000));
  std::vector<const dsanalyze::Metric*> group;
  for (const auto& m : metrics) group.push_back(m.get());
  std::vector<std::vector<int64_t>> values(3, std::vector<int64_t>(kBatch));
  std::vector<std::span<int64_t>> spans(values.begin(), values.end());
  const auto metric_pass = [&](int which) {
    return [&, which] {
      for (size_t b = 0; b < batches.offsets.size(); ++b) {
        const SampleBatch batch = batches.Get(b);
        std::vector<std::span<int64_t>> out;
        for (auto& v : spans) out.push_back(v.first(batch.size()));
        const dsanalyze::Status st = which < 0 ? metrics[0]->ComputeTogether(batch, group, out)
                                               : metrics[which]->Compute(batch, out[which]);
        if (!st.ok()) std::fprintf(stderr, "%s\n", st.message().c_str()), std::exit(3);
      }
    };
  };
  std::printf("%s: %llu tokens, %llu samples, fastest of %d rounds, ns a token\n", argv[1],
              static_cast<unsigned long long>(batches.tokens),
              static_cast<unsigned long long>(data->num_rows()), rounds);
  std::printf("read     %.3f\n", NsPerToken(batches, rounds, read));
  const uint64_t floors = ShowFloors(batches, tokens, rounds);
  const uint64_t tables = TablePasses{batches, tokens, rounds}.ShowAll();
  std::printf("unique   %.3f\n", NsPerToken(batches, rounds, metric_pass(0)));
  std::printf("entropy  %.3f\n", NsPerToken(batches, rounds, metric_pass(1)));
  std::printf("ngram    %.3f\n", NsPerToken(batches, rounds, metric_pass(2)));
  std::printf("all3     %.3f\n", NsPerToken(batches, rounds, metric_pass(-1)));
  return sum + floors + tables == 42 ? 1 : 0;  // never: only keeps the passes' results alive
}
