#include "report/rank_correlation.h"

// GCC 12's AVX-512 intrinsics start from an unset register (GCC bug 105593):
// its warnings about them are off for the header's own lines only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "format/indexed_dataset.h"
#include "metrics/word_sums.h"  // HaveAvx512Gathers
#include "output/analysis_files.h"
#include "output/analysis_layout.h"

// Compiles a function for AVX-512F, whatever the build's target: it runs only
// where HaveAvx512Gathers() says the CPU has it.
#define DSA_RANKS_AVX512 __attribute__((target("avx512f")))

namespace dsanalyze {
namespace {

using u128 = unsigned __int128;

// Samples read from each file at a time: 512 KiB of int64 per metric.
constexpr uint64_t kRankChunk = uint64_t{1} << 16;

// Samples whose twice-ranks RankProductSums::Add holds at a time: 8 KiB a
// metric.
constexpr size_t kRankBlock = 1024;

// The twice-rank of a value that is not one of the metric's values: a bit no
// twice-rank has (they are at most 2n + 1, n < 2^62 samples), so that Fill's
// caller finds one.
constexpr uint64_t kNotAValue = uint64_t{1} << 63;

// A dense table's entry for a value that is not one of the metric's values:
// no twice-rank is 0 (the least is 2), so a pair loop finds one as a product
// of 0, the least it added, which adds nothing.
constexpr uint32_t kDenseNotAValue = 0;

// A dense table as the pair loops read it: the entry of value v is
// table[min(v - min, last)] (unsigned: below min wraps to past last).
struct DenseLookup {
  const uint32_t* table;
  uint64_t min;
  uint64_t last;  // the entry past the range, kDenseNotAValue

  uint32_t At(int64_t v) const {
    const uint64_t at = static_cast<uint64_t>(v) - min;
    return table[at < last ? at : last];
  }
};

// Σ over n samples of a.At(va[i])·b.At(vb[i]), which the caller keeps below
// 2^64 (RankProductSums::dense_block_); *least becomes the least of it and
// every product added (0: a value not in its table).
uint64_t PairSumScalar(const DenseLookup& a, const DenseLookup& b, const int64_t* va,
                       const int64_t* vb, size_t n, uint64_t* least) {
  uint64_t sum = 0, low = *least;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t product = uint64_t{a.At(va[i])} * b.At(vb[i]);
    low = std::min(low, product);
    sum += product;
  }
  *least = low;
  return sum;
}

// PairSumScalar, 8 samples at a time: two gathers, a multiply and an add
// where the scalar loop takes 19 instructions a sample. Each lane's
// sum is a part of the whole, which fits 64 bits, so none wraps.
DSA_RANKS_AVX512 uint64_t PairSumAvx512(const DenseLookup& a, const DenseLookup& b,
                                        const int64_t* va, const int64_t* vb, size_t n,
                                        uint64_t* least) {
  const __m512i min_a = _mm512_set1_epi64(static_cast<int64_t>(a.min));
  const __m512i last_a = _mm512_set1_epi64(static_cast<int64_t>(a.last));
  const __m512i min_b = _mm512_set1_epi64(static_cast<int64_t>(b.min));
  const __m512i last_b = _mm512_set1_epi64(static_cast<int64_t>(b.last));
  __m512i sum = _mm512_setzero_si512(), low = _mm512_set1_epi64(static_cast<int64_t>(*least));
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m512i at_a =
        _mm512_min_epu64(_mm512_sub_epi64(_mm512_loadu_si512(va + i), min_a), last_a);
    const __m512i at_b =
        _mm512_min_epu64(_mm512_sub_epi64(_mm512_loadu_si512(vb + i), min_b), last_b);
    const __m512i ra = _mm512_cvtepu32_epi64(_mm512_i64gather_epi32(at_a, a.table, 4));
    const __m512i rb = _mm512_cvtepu32_epi64(_mm512_i64gather_epi32(at_b, b.table, 4));
    const __m512i product = _mm512_mul_epu32(ra, rb);
    low = _mm512_min_epu64(low, product);
    sum = _mm512_add_epi64(sum, product);
  }
  *least = _mm512_reduce_min_epu64(low);
  return static_cast<uint64_t>(_mm512_reduce_add_epi64(sum)) +
         PairSumScalar(a, b, va + i, vb + i, n - i, least);
}

// cross[a·k + b] (a < b) += Σ over samples of Ra·Rb, every file streamed once
// in chunks.
Status SumFiles(const std::vector<IndexedDataset>& files, uint64_t n, RankProductSums* sums) {
  const size_t k = files.size();
  std::vector<std::vector<int64_t>> raw(k, std::vector<int64_t>(kRankChunk));
  std::vector<const int64_t*> rows(k);
  for (size_t a = 0; a < k; ++a) rows[a] = raw[a].data();
  for (uint64_t from = 0; from < n; from += kRankChunk) {
    const size_t len = static_cast<size_t>(std::min(kRankChunk, n - from));
    for (size_t a = 0; a < k; ++a)
      WidenElements(files[a].elements(), from, std::span(raw[a].data(), len));
    if (const auto missing = sums->Add(rows, len)) {
      const auto [a, i] = *missing;
      return Status::BadInput(files[a].prefix() + ": row " + std::to_string(from + i) + ": value " +
                              std::to_string(raw[a][i]) + " is not in its index_to_metric");
    }
  }
  return Status::OK();
}

// The cross sums of `metrics` from their sample_to_metric files.
Result<std::vector<u128>> CrossFromFiles(const std::string& save_path,
                                         const std::vector<RankedMetric>& metrics,
                                         CodeTable table) {
  const uint64_t n = metrics[0].distribution->samples;
  std::vector<IndexedDataset> files;
  std::vector<const CountedValues*> distributions;
  for (const RankedMetric& m : metrics) {
    const std::string prefix = MetricFilePrefix(save_path, m.name, kSampleToMetric);
    DSA_ASSIGN_OR_RETURN(const IndexedDataset::Options options, MetricFileOptions(prefix, table));
    DSA_ASSIGN_OR_RETURN(IndexedDataset file, IndexedDataset::OpenScalarRows(prefix, options));
    if (file.num_elements() != n || m.distribution->samples != n)
      return Status::BadInput(prefix + ": holds " + std::to_string(file.num_elements()) +
                              " samples but the index files hold " + std::to_string(n));
    files.push_back(std::move(file));
    distributions.push_back(m.distribution);
  }
  RankProductSums sums(distributions);
  DSA_RETURN_IF_ERROR(SumFiles(files, n, &sums));
  return std::move(sums.cross());
}

// Whether `sums` are of `metrics`, in their order, and of their samples.
bool SumsAreOf(const RankSums* sums, const std::vector<RankedMetric>& metrics) {
  if (sums == nullptr || sums->metrics.size() != metrics.size()) return false;
  for (size_t a = 0; a < metrics.size(); ++a)
    if (sums->metrics[a] != metrics[a].name || metrics[a].distribution->samples != sums->samples)
      return false;
  return true;
}

}  // namespace

// Twice each distinct value's average rank (2·before + count + 1: an integer,
// where the average rank itself may end in .5), looked up by value. A dense
// table of 32-bit ranks when the values' range is at most a few times their
// number (lengths, counts, scaled scores) and every rank fits 32 bits (fewer
// than 2^31 samples), so that the lookup per sample is one load; a binary
// search otherwise. Memory O(distinct values) either way.
class RankProductSums::TwiceRanks {
 public:
  explicit TwiceRanks(const CountedValues& d) : d_(&d) {
    uint64_t before = 0;
    for (const uint64_t c : d.counts) {
      ranks_.push_back(2 * before + c + 1);
      before += c;
    }
    if (d.values.empty() || ranks_.back() > std::numeric_limits<uint32_t>::max()) return;
    const u128 range = static_cast<u128>(static_cast<__int128>(d.values.back()) - d.values.front());
    if (range >= 8 * d.values.size() + 65536) return;
    min_ = d.values.front();
    // One entry past the range, which every value outside it is looked up at.
    dense_.assign(static_cast<size_t>(range) + 2, kDenseNotAValue);
    for (size_t i = 0; i < d.values.size(); ++i)
      dense_[static_cast<uint64_t>(d.values[i]) - static_cast<uint64_t>(min_)] =
          static_cast<uint32_t>(ranks_[i]);
  }

  bool dense() const { return !dense_.empty(); }
  // The largest twice-rank.
  uint64_t most() const { return ranks_.empty() ? 0 : ranks_.back(); }

  DenseLookup lookup() const {
    return {dense_.data(), static_cast<uint64_t>(min_), dense_.size() - 1};
  }

  // out[i] = the twice-rank of raw[i], kNotAValue when it is not one of the
  // values.
  void Fill(const int64_t* raw, size_t len, uint64_t* out) const {
    if (dense()) {
      const DenseLookup table = lookup();
      for (size_t i = 0; i < len; ++i) {
        const uint32_t r = table.At(raw[i]);
        out[i] = r != kDenseNotAValue ? r : kNotAValue;
      }
      return;
    }
    const std::vector<int64_t>& values = d_->values;
    for (size_t i = 0; i < len; ++i) {
      const auto it = std::lower_bound(values.begin(), values.end(), raw[i]);
      out[i] = it != values.end() && *it == raw[i] ? ranks_[it - values.begin()] : kNotAValue;
    }
  }

  // Σ over samples of (twice the rank)²: from the counts, no pass over samples.
  u128 SumOfSquares() const {
    u128 sum = 0;
    for (size_t i = 0; i < ranks_.size(); ++i)
      sum += static_cast<u128>(ranks_[i]) * ranks_[i] * d_->counts[i];
    return sum;
  }

 private:
  const CountedValues* d_;
  std::vector<uint64_t> ranks_;
  int64_t min_ = 0;
  std::vector<uint32_t> dense_;
};

RankProductSums::RankProductSums(const std::vector<const CountedValues*>& distributions)
    : cross_(distributions.size() * distributions.size(), 0),
      chunk_(distributions.size(), std::vector<uint64_t>(kRankBlock)),
      dense_block_(kRankBlock) {
  for (const CountedValues* d : distributions) ranks_.emplace_back(*d);
  // A dense block's products, each below most(a)·most(b) < 2^64, sum in 64
  // bits: as many samples a block as keep every pair's sum below 2^64.
  for (size_t a = 0; a < ranks_.size(); ++a)
    for (size_t b = a + 1; b < ranks_.size(); ++b) {
      const u128 most = static_cast<u128>(ranks_[a].most()) * ranks_[b].most();
      if (most > 0)
        dense_block_ = static_cast<size_t>(
            std::min<u128>(dense_block_, std::numeric_limits<uint64_t>::max() / most));
    }
}
RankProductSums::~RankProductSums() = default;
RankProductSums::RankProductSums(RankProductSums&&) noexcept = default;

u128 RankProductSums::SumOfSquares(size_t a) const { return ranks_[a].SumOfSquares(); }

// Adds the products of every pair of metrics over samples [from, from + n)
// (n ≤ dense_block_) when every metric has a dense table: one loop a pair
// that looks both ranks up and multiplies them, with nothing stored between,
// 8 samples at a time where the CPU has AVX-512 (docs/benchmarks.md, case
// RP). False, and nothing added, when a value is not one of its metric's
// values.
bool RankProductSums::AddDense(const std::vector<const int64_t*>& values, size_t from, size_t n) {
  const size_t k = ranks_.size();
  const bool wide = HaveAvx512Gathers();
  block_.assign(k * k, 0);
  uint64_t least = std::numeric_limits<uint64_t>::max();  // of every product added
  for (size_t a = 0; a < k; ++a)
    for (size_t b = a + 1; b < k; ++b) {
      const DenseLookup ta = ranks_[a].lookup(), tb = ranks_[b].lookup();
      const int64_t *va = values[a] + from, *vb = values[b] + from;
      block_[a * k + b] = wide ? PairSumAvx512(ta, tb, va, vb, n, &least)
                               : PairSumScalar(ta, tb, va, vb, n, &least);
    }
  if (least == 0) return false;
  for (size_t i = 0; i < block_.size(); ++i) cross_[i] += block_[i];
  return true;
}

std::optional<std::pair<size_t, size_t>> RankProductSums::Add(
    const std::vector<const int64_t*>& values, size_t len) {
  const size_t k = ranks_.size();
  const bool dense =
      std::all_of(ranks_.begin(), ranks_.end(), [](const TwiceRanks& r) { return r.dense(); });
  // In blocks whose twice-ranks stay in the L1 cache between their filling
  // and their products: the values are then read once, from memory. A block
  // with a missing value goes this way too, which finds it.
  const size_t block = dense ? dense_block_ : kRankBlock;
  for (size_t from = 0; from < len; from += block) {
    const size_t n = std::min(block, len - from);
    if (dense && AddDense(values, from, n)) continue;
    for (size_t a = 0; a < k; ++a) {
      uint64_t* r = chunk_[a].data();
      ranks_[a].Fill(values[a] + from, n, r);
      if (const uint64_t* missing = std::find(r, r + n, kNotAValue); missing != r + n)
        return std::pair{a, from + static_cast<size_t>(missing - r)};
    }
    for (size_t a = 0; a < k; ++a)
      for (size_t b = a + 1; b < k; ++b) {
        const uint64_t *ra = chunk_[a].data(), *rb = chunk_[b].data();
        u128 sum = 0;
        for (size_t i = 0; i < n; ++i) sum += static_cast<u128>(ra[i]) * rb[i];
        cross_[a * k + b] += sum;
      }
  }
  return std::nullopt;
}

Result<std::vector<std::vector<std::optional<double>>>> SpearmanMatrix(
    const std::string& save_path, const std::vector<RankedMetric>& metrics, CodeTable table,
    const RankSums* sums) {
  const size_t k = metrics.size();
  if (k == 0) return std::vector<std::vector<std::optional<double>>>{};
  const uint64_t n = metrics[0].distribution->samples;
  std::vector<u128> cross;
  if (SumsAreOf(sums, metrics)) {
    cross = sums->cross;
  } else {
    DSA_ASSIGN_OR_RETURN(cross, CrossFromFiles(save_path, metrics, table));
  }
  std::vector<const CountedValues*> distributions;
  for (const RankedMetric& m : metrics) distributions.push_back(m.distribution);
  const RankProductSums squares(distributions);
  // With R twice the rank, ΣR = n(n+1) and the mean is n+1, so the centred
  // sums are Σ Ra·Rb − n(n+1)².
  const __int128 base = static_cast<__int128>(n) * (n + 1) * (n + 1);
  std::vector<long double> spread(k);
  for (size_t a = 0; a < k; ++a)
    spread[a] = static_cast<long double>(static_cast<__int128>(squares.SumOfSquares(a)) - base);
  std::vector<std::vector<std::optional<double>>> rho(k, std::vector<std::optional<double>>(k));
  for (size_t a = 0; a < k; ++a)
    for (size_t b = a; b < k; ++b) {
      if (spread[a] <= 0 || spread[b] <= 0) continue;  // a constant metric
      const long double centred = static_cast<__int128>(cross[a * k + b]) - base;
      const double r = a == b ? 1.0
                              : static_cast<double>(std::clamp(
                                    centred / std::sqrt(spread[a] * spread[b]), -1.0L, 1.0L));
      rho[a][b] = rho[b][a] = r;
    }
  return rho;
}

}  // namespace dsanalyze
