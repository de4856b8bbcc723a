// unique_token_ratio, token_entropy and repeated_ngram_ratio against brute-force
// computations (std::map counting, the formulas written out) over random
// samples of several dtypes, and on hand-made edge cases.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <span>
#include <thread>

#include "config/memory_budget.h"
#include "dataset/open_dataset.h"
#include "metrics/batch_builder.h"
#include "metrics/builtin_metrics.h"
#include "metrics/metric_entry.h"
#include "metrics/registry.h"

namespace dsanalyze {
namespace {

using test::OwnedBatch;
using Rows = std::vector<std::vector<int64_t>>;

// --- the brute-force reference -----------------------------------------------

std::vector<int64_t> Kept(const std::vector<int64_t>& row, const std::set<int64_t>& ignore) {
  std::vector<int64_t> kept;
  for (int64_t v : row)
    if (!ignore.count(v)) kept.push_back(v);
  return kept;
}

// The integer nearest to num / den, ties to even, by comparing candidates.
int64_t NearestEven(unsigned __int128 num, unsigned __int128 den) {
  const unsigned __int128 lo = num / den;
  const unsigned __int128 below = num - lo * den, above = (lo + 1) * den - num;
  if (below < above || (below == above && lo % 2 == 0)) return static_cast<int64_t>(lo);
  return static_cast<int64_t>(lo + 1);
}

int64_t RefUnique(const std::vector<int64_t>& t, uint64_t scale) {
  if (t.empty()) return 0;
  const std::set<int64_t> distinct(t.begin(), t.end());
  return NearestEven(static_cast<unsigned __int128>(distinct.size()) * scale, t.size());
}

// H · scale in long double, in map order.
long double RefEntropyScaled(const std::vector<int64_t>& t, uint64_t scale) {
  std::map<int64_t, uint64_t> counts;
  for (int64_t v : t) ++counts[v];
  long double h = 0;
  for (const auto& [token, c] : counts) {
    const long double p = static_cast<long double>(c) / t.size();
    h -= p * std::log2(p);
  }
  return h * scale;
}

int64_t RefRepeated(const std::vector<int64_t>& t, uint64_t n, uint64_t scale) {
  if (t.size() < n) return 0;
  std::map<std::vector<int64_t>, uint64_t> grams;
  for (size_t i = 0; i + n <= t.size(); ++i)
    ++grams[std::vector<int64_t>(t.begin() + i, t.begin() + i + n)];
  uint64_t repeated = 0;
  for (const auto& [gram, c] : grams)
    if (c > 1) repeated += c;
  return NearestEven(static_cast<unsigned __int128>(repeated) * scale, t.size() - n + 1);
}

// --- helpers -------------------------------------------------------------------

template <class T>
std::vector<int64_t> Run(const Metric& m, DType dtype, const Rows& rows) {
  std::vector<std::vector<T>> typed;
  for (const auto& row : rows) typed.emplace_back(row.begin(), row.end());
  OwnedBatch<T> batch(0, dtype, typed);
  std::vector<int64_t> out(rows.size());
  REQUIRE(m.Compute(batch.batch, out).ok());
  return out;
}

// Random rows: lengths 0..max_len, tokens mostly from a small alphabet (so
// that tokens and n-grams repeat), some anywhere in [lo, hi].
Rows RandomRows(std::mt19937_64& rng, int64_t lo, int64_t hi, size_t count, size_t max_len) {
  std::uniform_int_distribution<int64_t> any(lo, hi), small(0, 5), len(0, max_len), coin(0, 9);
  Rows rows(count);
  for (auto& row : rows) {
    row.resize(len(rng));
    for (int64_t& v : row) v = coin(rng) < 8 ? lo + small(rng) : any(rng);
  }
  return rows;
}

struct DTypeCase {
  DType dtype;
  int64_t lo, hi;
};

std::vector<int64_t> RunAny(const Metric& m, DType dtype, const Rows& rows) {
  switch (dtype) {
    case DType::kU8:
      return Run<uint8_t>(m, dtype, rows);
    case DType::kU16:
      return Run<uint16_t>(m, dtype, rows);
    case DType::kI16:
      return Run<int16_t>(m, dtype, rows);
    case DType::kI32:
      return Run<int32_t>(m, dtype, rows);
    default:
      return Run<int64_t>(m, dtype, rows);
  }
}

const std::vector<DTypeCase> kDTypes = {
    {DType::kU8, 0, 255},
    {DType::kU16, 0, 65535},
    {DType::kI16, -32768, 32767},
    {DType::kI32, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()},
    {DType::kI64, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}};

// The ignored ids: two of the small alphabet of each dtype, as sorted int64.
std::vector<int64_t> IgnoredFor(const DTypeCase& d) { return {d.lo + 1, d.lo + 4}; }

// --- against the reference ------------------------------------------------------

TEST_CASE("token quality: each metric equals the brute force on random samples",
          "[token_quality]") {
  std::mt19937_64 rng(20261202);
  for (const DTypeCase& d : kDTypes) {
    for (bool ignoring : {false, true}) {
      const std::vector<int64_t> ignore = ignoring ? IgnoredFor(d) : std::vector<int64_t>{};
      const std::set<int64_t> ignore_set(ignore.begin(), ignore.end());
      const Rows rows = RandomRows(rng, d.lo, d.hi, 300, 40);
      for (uint64_t scale : {uint64_t{1}, uint64_t{7}, uint64_t{1000}}) {
        CAPTURE(static_cast<int>(d.dtype), ignoring, scale);
        const std::vector<int64_t> unique =
            RunAny(*NewUniqueTokenRatioMetric("u", ignore, scale), d.dtype, rows);
        const std::vector<int64_t> entropy =
            RunAny(*NewTokenEntropyMetric("e", ignore, scale), d.dtype, rows);
        for (size_t i = 0; i < rows.size(); ++i) {
          const std::vector<int64_t> t = Kept(rows[i], ignore_set);
          CHECK(unique[i] == RefUnique(t, scale));
          const long double ref = RefEntropyScaled(t, scale);
          // Off a tie the nearest integer is clear; at a tie either side is.
          if (std::fabs(ref - std::floor(ref) - 0.5L) > 1e-9L)
            CHECK(entropy[i] == static_cast<int64_t>(std::llround(ref)));
          else
            CHECK(std::fabs(entropy[i] - ref) <= 0.5L + 1e-9L);
        }
        for (uint64_t n : {1, 2, 3, 4, 5, 7, 8, 9}) {
          CAPTURE(n);
          const std::vector<int64_t> repeated =
              RunAny(*NewRepeatedNgramRatioMetric("r", ignore, n, scale), d.dtype, rows);
          for (size_t i = 0; i < rows.size(); ++i)
            CHECK(repeated[i] == RefRepeated(Kept(rows[i], ignore_set), n, scale));
        }
      }
    }
  }
}

TEST_CASE("token quality: the same tokens give the same values in every dtype", "[token_quality]") {
  std::mt19937_64 rng(7);
  const Rows rows = RandomRows(rng, 0, 255, 200, 300);
  for (uint64_t n : {1, 3, 5}) {
    std::vector<std::unique_ptr<Metric>> metrics;
    metrics.push_back(NewUniqueTokenRatioMetric("u", {}, 1000));
    metrics.push_back(NewTokenEntropyMetric("e", {}, 1000000));
    metrics.push_back(NewRepeatedNgramRatioMetric("r", {}, n, 1000));
    for (const auto& m : metrics) {
      const std::vector<int64_t> u8 = RunAny(*m, DType::kU8, rows);
      CHECK(RunAny(*m, DType::kU16, rows) == u8);
      CHECK(RunAny(*m, DType::kI32, rows) == u8);
      CHECK(RunAny(*m, DType::kI64, rows) == u8);
    }
  }
}

TEST_CASE("token quality: computed together, each metric gets its own values", "[token_quality]") {
  std::mt19937_64 rng(47);
  const std::vector<int64_t> ignore = {1, 4};
  const Rows rows = RandomRows(rng, 0, 65535, 300, 60);
  std::vector<std::unique_ptr<Metric>> metrics;
  metrics.push_back(NewRepeatedNgramRatioMetric("r3", ignore, 3, 1000));
  metrics.push_back(NewTokenEntropyMetric("e", ignore, 1000000));
  metrics.push_back(NewUniqueTokenRatioMetric("u", ignore, 7));
  metrics.push_back(NewTokenEntropyMetric("e2", ignore, 3));  // the same count, another scale
  metrics.push_back(NewRepeatedNgramRatioMetric("r1", ignore, 1, 1000));
  std::vector<const Metric*> group;
  for (const auto& m : metrics) {
    CHECK(m->shared_pass() == "token_quality");
    group.push_back(m.get());
  }
  std::vector<std::vector<uint16_t>> typed;
  for (const auto& row : rows) typed.emplace_back(row.begin(), row.end());
  OwnedBatch<uint16_t> batch(0, DType::kU16, typed);
  std::vector<std::vector<int64_t>> together(metrics.size(), std::vector<int64_t>(rows.size()));
  std::vector<std::span<int64_t>> spans(together.begin(), together.end());
  REQUIRE(metrics[1]->ComputeTogether(batch.batch, group, spans).ok());
  for (size_t j = 0; j < metrics.size(); ++j) {
    CAPTURE(j);
    CHECK(together[j] == RunAny(*metrics[j], DType::kU16, rows));
  }
  // Only metrics of the same pass and ignored ids go together.
  const std::unique_ptr<Metric> other = NewTokenEntropyMetric("o", {}, 1000);
  const std::unique_ptr<Metric> seqlen = NewSeqlenMetric("len", ignore);
  for (const Metric* stranger : {other.get(), seqlen.get()}) {
    group[2] = stranger;
    CHECK(metrics[1]->ComputeTogether(batch.batch, group, spans).code() == Status::Code::kInternal);
  }
}

TEST_CASE(
    "token quality: computed together, the n-grams counted with the tokens equal the "
    "brute force in every dtype",
    "[token_quality]") {
  // With a count in the group, the first repeated_ngram_ratio whose windows
  // pack into 48 bits is counted in the counting loop; the others on their own.
  std::mt19937_64 rng(4747);
  for (const DTypeCase& d : kDTypes) {
    for (bool ignoring : {false, true}) {
      const std::vector<int64_t> ignore = ignoring ? IgnoredFor(d) : std::vector<int64_t>{};
      const std::set<int64_t> ignore_set(ignore.begin(), ignore.end());
      const Rows rows = RandomRows(rng, d.lo, d.hi, 200, 50);
      for (uint64_t n : {1, 2, 3, 6}) {
        CAPTURE(static_cast<int>(d.dtype), ignoring, n);
        std::vector<std::unique_ptr<Metric>> metrics;
        metrics.push_back(NewUniqueTokenRatioMetric("u", ignore, 1000));
        metrics.push_back(NewRepeatedNgramRatioMetric("r", ignore, n, 1000));
        metrics.push_back(NewRepeatedNgramRatioMetric("r7", ignore, n, 7));  // same n
        metrics.push_back(NewRepeatedNgramRatioMetric("r2", ignore, 2, 1000));
        std::vector<const Metric*> group;
        for (const auto& m : metrics) group.push_back(m.get());
        std::vector<std::vector<int64_t>> values(metrics.size(), std::vector<int64_t>(rows.size()));
        std::vector<std::span<int64_t>> spans(values.begin(), values.end());
        const auto run = [&](auto zero) {
          using T = decltype(zero);
          std::vector<std::vector<T>> typed;
          for (const auto& row : rows) typed.emplace_back(row.begin(), row.end());
          OwnedBatch<T> batch(0, d.dtype, typed);
          REQUIRE(metrics[0]->ComputeTogether(batch.batch, group, spans).ok());
        };
        switch (d.dtype) {
          case DType::kU8:
            run(uint8_t{});
            break;
          case DType::kU16:
            run(uint16_t{});
            break;
          case DType::kI16:
            run(int16_t{});
            break;
          case DType::kI32:
            run(int32_t{});
            break;
          default:
            run(int64_t{});
            break;
        }
        for (size_t i = 0; i < rows.size(); ++i) {
          const std::vector<int64_t> t = Kept(rows[i], ignore_set);
          CHECK(values[0][i] == RefUnique(t, 1000));
          CHECK(values[1][i] == RefRepeated(t, n, 1000));
          CHECK(values[2][i] == RefRepeated(t, n, 7));
          CHECK(values[3][i] == RefRepeated(t, 2, 1000));
        }
      }
    }
  }
}

// token_entropy's bits as the metric sums them: Σ m_c · (p · -log2(p)) in
// double, p = c / tokens, by ascending c, then times scale, nearest even.
int64_t SameDoubleEntropy(const std::vector<int64_t>& t, uint64_t scale) {
  std::map<int64_t, uint64_t> counts;
  for (int64_t v : t) ++counts[v];
  std::map<uint64_t, uint64_t> with_count;
  for (const auto& [token, c] : counts) ++with_count[c];
  double bits = 0;
  for (const auto& [c, m] : with_count) {
    const double p = static_cast<double>(c) / static_cast<double>(t.size());
    bits += static_cast<double>(m) * (p * -std::log2(p));
  }
  return static_cast<int64_t>(std::nearbyint(bits * static_cast<double>(scale)));
}

TEST_CASE("token_entropy: the same double whichever sample length filled its terms first",
          "[token_quality]") {
  // The terms p · -log2(p) are kept a row per sample length (lengths equal
  // mod 1024 share a row) for counts below 64; at the largest scale every bit
  // of the sum shows. Lengths 300, 1324 and 2348 share a row, in turn.
  std::mt19937_64 rng(1024);
  std::uniform_int_distribution<int64_t> token(0, 40);
  Rows rows;
  for (int round = 0; round < 3; ++round) {
    for (size_t length : {300, 1324, 2348, 300, 5000}) {
      rows.emplace_back(length);
      for (int64_t& v : rows.back()) v = token(rng) * token(rng) % 97;  // counts 1 to hundreds
    }
  }
  for (uint64_t scale : {uint64_t{1000}, kMaxEntropyScale}) {
    std::vector<int64_t> want;
    for (const auto& row : rows) want.push_back(SameDoubleEntropy(row, scale));
    CHECK(Run<uint16_t>(*NewTokenEntropyMetric("e", {}, scale), DType::kU16, rows) == want);
    CHECK(Run<int64_t>(*NewTokenEntropyMetric("e", {}, scale), DType::kI64, rows) == want);
  }
}

// --- edge cases -------------------------------------------------------------------

TEST_CASE("token quality: empty samples, all-ignored samples, samples shorter than n",
          "[token_quality]") {
  const std::vector<int64_t> ignore = {0};
  const Rows rows = {{}, {0, 0, 0}, {5, 5}, {5, 0, 5, 0, 5}, {7}};
  CHECK(Run<int32_t>(*NewUniqueTokenRatioMetric("u", ignore, 1000), DType::kI32, rows) ==
        std::vector<int64_t>{0, 0, 500, 333, 1000});
  CHECK(Run<int32_t>(*NewTokenEntropyMetric("e", ignore, 1000), DType::kI32, rows) ==
        std::vector<int64_t>{0, 0, 0, 0, 0});
  // n = 3: {5, 5} and {7} are too short; {5, 0, 5, 0, 5} keeps 5 5 5, one 3-gram.
  CHECK(Run<int32_t>(*NewRepeatedNgramRatioMetric("r", ignore, 3, 1000), DType::kI32, rows) ==
        std::vector<int64_t>{0, 0, 0, 0, 0});
  // n = 1: every kept token of {5, 5} and of 5 5 5 repeats.
  CHECK(Run<int32_t>(*NewRepeatedNgramRatioMetric("r", ignore, 1, 1000), DType::kI32, rows) ==
        std::vector<int64_t>{0, 0, 1000, 1000, 0});
}

TEST_CASE("token quality: docs/config.md's worked example", "[token_quality]") {
  const std::vector<int64_t> ignore = {0};
  const Rows rows = {{5, 7, 5, 0, 7, 5, 9, 5, 7}};
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", ignore, 1000), DType::kU16, rows)[0] == 375);
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", ignore, 4), DType::kU16, rows)[0] == 2);
  CHECK(Run<uint16_t>(*NewTokenEntropyMetric("e", ignore, 1000), DType::kU16, rows)[0] == 1406);
  const auto repeated = [&](uint64_t n) {
    return Run<uint16_t>(*NewRepeatedNgramRatioMetric("r", ignore, n, 1000), DType::kU16, rows)[0];
  };
  CHECK(repeated(1) == 875);
  CHECK(repeated(2) == 714);
  CHECK(repeated(3) == 333);
  CHECK(repeated(9) == 0);
}

TEST_CASE("token quality: ratios round half to even, exactly", "[token_quality]") {
  // With scale 4: 1/8 -> 0.5 -> 0, 3/8 -> 1.5 -> 2, 5/8 -> 2.5 -> 2, 7/8 -> 3.5 -> 4.
  const Rows unique_rows = {{1, 1, 1, 1, 1, 1, 1, 1},
                            {1, 2, 3, 3, 3, 3, 3, 3},
                            {1, 2, 3, 4, 5, 5, 5, 5},
                            {1, 2, 3, 4, 5, 6, 7, 7}};
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", {}, 4), DType::kU16, unique_rows) ==
        std::vector<int64_t>{0, 2, 2, 4});
  // n = 1: repeated tokens' counts 2 (2/8 · 2 = 0.5), 3, 5 and 7 of 8.
  const Rows repeated_rows = {{1, 1, 2, 3, 4, 5, 6, 7},
                              {1, 1, 1, 2, 3, 4, 5, 6},
                              {1, 1, 1, 2, 2, 3, 4, 5},
                              {1, 1, 1, 1, 1, 1, 1, 2}};
  CHECK(Run<uint16_t>(*NewRepeatedNgramRatioMetric("r", {}, 1, 2), DType::kU16,
                      {repeated_rows[0]}) == std::vector<int64_t>{0});
  CHECK(Run<uint16_t>(*NewRepeatedNgramRatioMetric("r", {}, 1, 4), DType::kU16, repeated_rows) ==
        std::vector<int64_t>{1, 2, 2, 4});
  // The largest scale: 1/2 of INT64_MAX (odd) is a tie, rounded to the even side.
  const uint64_t max = std::numeric_limits<int64_t>::max();
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", {}, max), DType::kU16, {{1, 1}, {1, 2}}) ==
        std::vector<int64_t>{int64_t{max / 2 + 1}, int64_t{max}});
}

TEST_CASE("token quality: entropy is exact for dyadic distributions, ties to even",
          "[token_quality]") {
  // counts {2, 1, 1} of 4: H = 1.5 bits; {2, 2, 1, 1, 1, 1} of 8: H = 2.5 bits.
  const Rows rows = {{9, 9, 3, 4}, {1, 1, 2, 2, 3, 4, 5, 6}, {1, 2}, {6, 6, 6}};
  CHECK(Run<int64_t>(*NewTokenEntropyMetric("e", {}, 1), DType::kI64, rows) ==
        std::vector<int64_t>{2, 2, 1, 0});
  CHECK(Run<int64_t>(*NewTokenEntropyMetric("e", {}, 1000), DType::kI64, rows) ==
        std::vector<int64_t>{1500, 2500, 1000, 0});
  // 16 distinct tokens of equal count: 4 bits, also at the largest scale.
  Rows sixteen(1);
  for (int64_t t = 0; t < 16; ++t) sixteen[0].insert(sixteen[0].end(), {t, t, t});
  CHECK(Run<int8_t>(*NewTokenEntropyMetric("e", {}, kMaxEntropyScale), DType::kI8, sixteen) ==
        std::vector<int64_t>{static_cast<int64_t>(4 * kMaxEntropyScale)});
}

TEST_CASE("token quality: all 65536 uint16 ids in one sample", "[token_quality]") {
  Rows rows(1);
  for (int64_t t = 0; t < 65536; ++t) rows[0].push_back(t);
  rows[0].push_back(0);
  rows[0].push_back(65535);
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", {}, 65538), DType::kU16, rows) ==
        std::vector<int64_t>{65536});
  CHECK(Run<uint16_t>(*NewRepeatedNgramRatioMetric("r", {}, 1, 65538), DType::kU16, rows) ==
        std::vector<int64_t>{4});
  const long double h = RefEntropyScaled(rows[0], 1000000);
  CHECK(Run<uint16_t>(*NewTokenEntropyMetric("e", {}, 1000000), DType::kU16, rows) ==
        std::vector<int64_t>{std::llround(h)});
}

TEST_CASE("token quality: counts of thousands of occurrences", "[token_quality]") {
  // Counts 9000, 5000 (twice), 4096, 4095, 3 and 1: both sides of the entropy's
  // table of counts, in samples of uint16 (dense count) and int64 (sorted).
  std::mt19937_64 rng(3);
  Rows rows(1);
  const std::vector<std::pair<int64_t, int>> counts = {{7, 9000},  {8, 5000}, {9, 5000}, {10, 4096},
                                                       {11, 4095}, {12, 3},   {13, 1}};
  for (const auto& [token, count] : counts) rows[0].insert(rows[0].end(), count, token);
  std::shuffle(rows[0].begin(), rows[0].end(), rng);
  rows.push_back(std::vector<int64_t>(20000, 5));  // one token: entropy 0
  for (uint64_t scale : {uint64_t{1000}, uint64_t{1} << 40}) {
    const std::vector<int64_t> want = {std::llround(RefEntropyScaled(rows[0], scale)), 0};
    CHECK(Run<uint16_t>(*NewTokenEntropyMetric("e", {}, scale), DType::kU16, rows) == want);
    CHECK(Run<int64_t>(*NewTokenEntropyMetric("e", {}, scale), DType::kI64, rows) == want);
  }
  CHECK(Run<uint16_t>(*NewUniqueTokenRatioMetric("u", {}, 1000000), DType::kU16, rows) ==
        std::vector<int64_t>{RefUnique(rows[0], 1000000), 50});
  CHECK(Run<uint16_t>(*NewRepeatedNgramRatioMetric("r", {}, 2, 1000), DType::kU16, rows) ==
        std::vector<int64_t>{RefRepeated(rows[0], 2, 1000), 1000});
}

TEST_CASE("repeated_ngram_ratio: windows of equal hash but different tokens differ",
          "[token_quality]") {
  // n = 2 of int64 is hashed: h(a, b) = a·B + b mod 2^64 with B = 0x100000001B3, so
  // (1, 0) and (2, -B) collide. Neither 2-gram repeats.
  const int64_t b = 0x100000001B3;
  const Rows rows = {{1, 0, 9, 2, -b}, {1, 0, 9, 1, 0}};
  CHECK(Run<int64_t>(*NewRepeatedNgramRatioMetric("r", {}, 2, 1000), DType::kI64, rows) ==
        std::vector<int64_t>{0, 500});
}

TEST_CASE("repeated_ngram_ratio: the n-gram table forgets earlier samples across its clears",
          "[token_quality]") {
  // The table empties itself by epoch, and clears its slots once every
  // kEpochs samples, when the epochs run out: all the slots used since the
  // last clear, not only the current sample's. A long sample of distinct
  // tokens comes back kEpochs samples later, with the epoch it had, after short
  // ones: a slot of the first kept through the clear would make every token of
  // the second seem repeated. The clear falls between the two unless the first
  // had the first epoch (the table is per thread, its epoch unknown here), so
  // a second pair follows two samples later.
  constexpr int kEpochs = 32767;
  std::vector<int64_t> distinct(5000);
  for (size_t i = 0; i < distinct.size(); ++i) distinct[i] = static_cast<int64_t>(i);
  const auto pair = [&](Rows& rows) {
    rows.push_back(distinct);
    for (int k = 0; k < kEpochs - 1; ++k) rows.push_back({7});
    rows.push_back(distinct);
  };
  Rows rows;
  pair(rows);
  rows.push_back({7});
  pair(rows);
  const std::unique_ptr<Metric> m = NewRepeatedNgramRatioMetric("r", {}, 1, 1000);
  for (DType dtype : {DType::kU16, DType::kI64})  // windows packed, windows hashed
    CHECK(RunAny(*m, dtype, rows) == std::vector<int64_t>(rows.size(), 0));
}

TEST_CASE("token quality: concurrent calls from several threads agree", "[token_quality]") {
  std::mt19937_64 rng(11);
  const Rows rows = RandomRows(rng, 0, 65535, 2000, 200);
  std::unique_ptr<Metric> m = NewRepeatedNgramRatioMetric("r", {}, 2, 1000);
  std::unique_ptr<Metric> e = NewTokenEntropyMetric("e", {}, 1000);
  const std::vector<int64_t> expected = Run<uint16_t>(*m, DType::kU16, rows);
  const std::vector<int64_t> expected_e = Run<uint16_t>(*e, DType::kU16, rows);
  std::vector<std::vector<int64_t>> got(4), got_e(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 3; ++k) {
        got[t] = Run<uint16_t>(*m, DType::kU16, rows);
        got_e[t] = Run<uint16_t>(*e, DType::kU16, rows);
      }
    });
  for (std::thread& t : threads) t.join();
  for (size_t t = 0; t < got.size(); ++t) {
    CHECK(got[t] == expected);
    CHECK(got_e[t] == expected_e);
  }
}

// --- through the registry ----------------------------------------------------------

using test::Entry;

TEST_CASE("token quality: params through the registry", "[token_quality]") {
  DatasetConfig c;
  c.type = SyntheticModConfig{.num_samples = 4};
  c.ignore_token_ids = {3};
  Result<std::unique_ptr<Dataset>> ds = OpenDataset(c);
  REQUIRE(ds.ok());
  MetricConfig entry = Entry("r", "repeated_ngram_ratio", 1);
  const auto create = [&](nlohmann::json params) {
    entry.params = std::move(params);
    return CreateMetric(entry, **ds);
  };
  // Defaults n = 3, scale 1000; the dataset's ignored id 3 is left out.
  Result<std::unique_ptr<Metric>> m = create(nlohmann::json::object());
  REQUIRE(m.ok());
  CHECK(Run<int32_t>(**m, DType::kI32, {{1, 2, 1, 3, 2, 1, 2, 2}}) == std::vector<int64_t>{800});
  m = create({{"n", 1}, {"scale", 10}});
  REQUIRE(m.ok());
  CHECK(Run<int32_t>(**m, DType::kI32, {{1, 2, 1, 3, 4}}) == std::vector<int64_t>{5});
  CHECK(create({{"n", 0}}).status().message() ==
        "config: metrics[1].params.n: expected a positive integer, got 0");
  CHECK(create({{"scale", "1000"}}).status().message() ==
        "config: metrics[1].params.scale: expected a positive integer, got \"1000\"");
  CHECK(create({{"m", 2}}).status().message().rfind("config: metrics[1].params: unknown key", 0) ==
        0);
  entry.metric = "token_entropy";
  CHECK(create({{"scale", kMaxEntropyScale}}).ok());
  CHECK(create({{"scale", kMaxEntropyScale + 1}}).status().code() == Status::Code::kBadInput);
  CHECK(create({{"n", 2}}).status().code() == Status::Code::kBadInput);
}

TEST_CASE("repeated_ngram_ratio: a sample whose n-gram table is past the memory budget is refused",
          "[metrics][token_quality]") {
  // 2^21 tokens: a table of 2^22 slots of 8 bytes, 32 MiB, under a 16 MiB
  // limit. Before the check it was allocated whatever its size: a document of
  // 2^31 - 1 tokens threw std::bad_alloc on a map thread (std::terminate).
  SetMemoryLimitPerRank(uint64_t{16} << 20);
  const std::unique_ptr<Metric> metric = NewRepeatedNgramRatioMetric("rep", {}, 3, 1000);
  const OwnedBatch<uint16_t> large(0, DType::kU16, {std::vector<uint16_t>(size_t{1} << 21, 7)});
  std::vector<int64_t> out(1);
  const Status st = metric->Compute(large.batch, out);
  const OwnedBatch<uint16_t> small(0, DType::kU16, {{1, 2, 3, 1, 2, 3}});
  const Status small_st = metric->Compute(small.batch, out);
  SetMemoryLimitPerRank(0);
  CHECK(st.code() == Status::Code::kBadInput);
  CHECK(st.message() ==
        "metric \"rep\": the n-gram table for a sample of 2097152 tokens (4194304 slots of 8 "
        "bytes) would take 32MiB of memory, more than the 16MiB of memory.limit_per_rank");
  REQUIRE(small_st.ok());
  CHECK(out[0] == 500);  // 4 windows, "1 2 3" twice
}

}  // namespace
}  // namespace dsanalyze
