#include "report/rank_correlation.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "batching/plan_report.h"

namespace dsanalyze {
namespace {

using u128 = unsigned __int128;

// The distinct values of `v` and their counts.
CountedValues CountsOf(const std::vector<int64_t>& v) {
  std::map<int64_t, uint64_t> counts;
  for (const int64_t x : v) ++counts[x];
  return Counted(counts);
}

// Σ Ra·Rb with R twice the average rank, sample by sample: the definition.
u128 CrossByDefinition(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const auto twice_ranks = [](const std::vector<int64_t>& v) {
    std::vector<uint64_t> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      uint64_t below = 0, equal = 0;
      for (const int64_t x : v) {
        below += x < v[i];
        equal += x == v[i];
      }
      r[i] = 2 * below + equal + 1;
    }
    return r;
  };
  const std::vector<uint64_t> ra = twice_ranks(a), rb = twice_ranks(b);
  u128 sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<u128>(ra[i]) * rb[i];
  return sum;
}

// Three metrics of `n` samples with many ties: a dense one, one whose values
// are sparse (a binary search), one dense with negatives.
std::vector<std::vector<int64_t>> ThreeMetrics(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<std::vector<int64_t>> m(3, std::vector<int64_t>(n));
  for (size_t i = 0; i < n; ++i) {
    m[0][i] = static_cast<int64_t>(gen() % 50);
    m[1][i] = static_cast<int64_t>(gen() % 7) * 400000 - 5;
    m[2][i] = (m[0][i] * 3 + static_cast<int64_t>(gen() % 20)) - 40;
  }
  return m;
}

// Adds metrics `which` of `m` in chunks of `chunk` samples; the cross sums.
std::vector<u128> AddInChunks(const std::vector<std::vector<int64_t>>& m,
                              const std::vector<size_t>& which, size_t chunk) {
  std::vector<CountedValues> d;
  for (const size_t a : which) d.push_back(CountsOf(m[a]));
  std::vector<const CountedValues*> pointers;
  for (const CountedValues& x : d) pointers.push_back(&x);
  RankProductSums sums(pointers);
  const size_t n = m[0].size();
  for (size_t from = 0; from < n; from += chunk) {
    std::vector<const int64_t*> rows;
    for (const size_t a : which) rows.push_back(m[a].data() + from);
    REQUIRE_FALSE(sums.Add(rows, std::min(chunk, n - from)).has_value());
  }
  return sums.cross();
}

TEST_CASE("RankProductSums: the products of twice the average ranks, as the definition",
          "[report][spearman]") {
  // 2,500 samples: blocks of 1,024 and a part block; chunks that split them.
  const std::vector<std::vector<int64_t>> m = ThreeMetrics(2500, 7);
  for (const size_t chunk : {size_t{2500}, size_t{1000}, size_t{1}}) {
    SECTION("dense tables, chunk " + std::to_string(chunk)) {
      const std::vector<u128> cross = AddInChunks(m, {0, 2}, chunk);
      CHECK(cross[1] == CrossByDefinition(m[0], m[2]));
      CHECK(cross[0] == 0);
    }
    SECTION("a sparse table beside dense ones, chunk " + std::to_string(chunk)) {
      const std::vector<u128> cross = AddInChunks(m, {0, 1, 2}, chunk);
      CHECK(cross[0 * 3 + 1] == CrossByDefinition(m[0], m[1]));
      CHECK(cross[0 * 3 + 2] == CrossByDefinition(m[0], m[2]));
      CHECK(cross[1 * 3 + 2] == CrossByDefinition(m[1], m[2]));
    }
  }
}

TEST_CASE("RankProductSums: a value its metric does not have adds nothing and is named",
          "[report][spearman]") {
  const std::vector<std::vector<int64_t>> m = ThreeMetrics(2500, 11);
  // Below and above a dense table's range; between a sparse metric's values.
  for (const auto& [metric, stray] :
       {std::pair{size_t{2}, int64_t{-1000}}, std::pair{size_t{2}, int64_t{1000}},
        std::pair{size_t{1}, int64_t{3}}}) {
    const CountedValues a = CountsOf(m[0]), b = CountsOf(m[metric]);
    RankProductSums sums({&a, &b});
    std::vector<int64_t> broken = m[metric];
    broken[1500] = stray;
    REQUIRE_FALSE(sums.Add({m[0].data(), broken.data()}, 1024).has_value());
    const u128 before = sums.cross()[1];
    const auto missing = sums.Add({m[0].data() + 1024, broken.data() + 1024}, 1476);
    REQUIRE(missing.has_value());
    CHECK(missing->first == 1);
    CHECK(missing->second == 1500 - 1024);
    CHECK(sums.cross()[1] == before);  // the block holding it added nothing
  }
  // A value inside the dense table's range that no sample had: 49 is
  // missing from a metric of even values.
  std::vector<int64_t> even(3000), other(3000);
  for (size_t i = 0; i < even.size(); ++i) {
    even[i] = static_cast<int64_t>(i % 25) * 2;
    other[i] = static_cast<int64_t>(i % 13);
  }
  const CountedValues e = CountsOf(even), o = CountsOf(other);
  even[2999] = 49;
  RankProductSums sums({&e, &o});
  const auto missing = sums.Add({even.data(), other.data()}, even.size());
  REQUIRE(missing.has_value());
  CHECK(missing->first == 0);
  CHECK(missing->second == 2999);
}

TEST_CASE("RankProductSums: ranks near and past 2^32 sum exactly", "[report][spearman]") {
  // Two values of 2^30 samples each (ranks up to 3·2^30 + 1, a 32-bit dense
  // table whose products near 2^64 leave one sample a 64-bit block sum), and
  // of 2^31 each (ranks past 2^32: the binary search). A few samples of the
  // larger value, with the smaller one in the last.
  for (const uint64_t count : {uint64_t{1} << 30, uint64_t{1} << 31}) {
    const CountedValues d{{0, 1}, {count, count}, 2 * count};
    const u128 low = count + 1, high = 3 * static_cast<u128>(count) + 1;
    std::vector<int64_t> v(3000, 1);
    v.back() = 0;
    RankProductSums sums({&d, &d});
    REQUIRE_FALSE(sums.Add({v.data(), v.data()}, v.size()).has_value());
    CHECK(sums.cross()[1] == (v.size() - 1) * high * high + low * low);
  }
}

}  // namespace
}  // namespace dsanalyze
