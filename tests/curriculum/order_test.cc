// dsanalyze order (curriculum/training_order.h) on small analyses written by
// the test's own index writer (support/output_fixture.h), against orders
// computed here independently with std::sort.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <numeric>
#include <random>
#include <set>

#include "curriculum/bucket_shuffle.h"
#include "curriculum/training_order.h"
#include "format/npy.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

namespace fs = std::filesystem;
using Ids = std::vector<int64_t>;

// An analysis folder with single-value metrics made from per-position values.
struct Analysis {
  test::ScratchDir scratch;
  std::string path = scratch / "analysis";
  Ids ids;  // id of position i

  explicit Analysis(Ids sample_ids) : ids(std::move(sample_ids)) {}
  void Add(const std::string& metric, const Ids& values) {
    test::WriteSingleValueMetric(path, metric, values, ids);
  }
  Result<Ids> Order(OrderOptions o) const {
    o.analysis = path;
    o.out = scratch / "order.npy";
    DSA_ASSIGN_OR_RETURN(const uint64_t n, WriteTrainingOrder(o));
    DSA_ASSIGN_OR_RETURN(NpyArray a, NpyArray::Open(o.out));
    REQUIRE(a.dtype() == DType::kI64);
    REQUIRE(a.major_version() == 1);
    REQUIRE(a.shape() == std::vector<uint64_t>{n});
    const auto e = a.elements().as<int64_t>();
    return Ids(e.begin(), e.end());
  }
};

Ids DefaultIds(size_t n) {
  Ids ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  return ids;
}

Ids RandomValues(size_t n, int64_t lo, int64_t hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> d(lo, hi);
  Ids v(n);
  for (int64_t& x : v) x = d(rng);
  return v;
}

// The ids sorted by (values[0], values[1], ..., id) (each value descending
// when `descending`, the id always ascending): the reference order.
Ids ReferenceOrder(const Ids& ids, const std::vector<Ids>& values, bool descending) {
  std::vector<size_t> pos(ids.size());
  std::iota(pos.begin(), pos.end(), 0);
  std::sort(pos.begin(), pos.end(), [&](size_t a, size_t b) {
    for (const Ids& v : values)
      if (v[a] != v[b]) return descending ? v[a] > v[b] : v[a] < v[b];
    return ids[a] < ids[b];
  });
  Ids out;
  for (size_t p : pos) out.push_back(ids[p]);
  return out;
}

OrderOptions Options(std::vector<std::string> metrics, uint64_t buckets = 0, uint64_t seed = 0,
                     bool descending = false) {
  OrderOptions o;
  o.metrics = std::move(metrics);
  o.buckets = buckets;
  o.seed = seed;
  o.descending = descending;
  return o;
}

// Bucket b of `order`: the positions [floor(b·n/k), floor((b+1)·n/k)).
Ids Bucket(const Ids& order, uint64_t k, uint64_t b) {
  const uint64_t n = order.size();
  return Ids(order.begin() + static_cast<ptrdiff_t>(b * n / k),
             order.begin() + static_cast<ptrdiff_t>((b + 1) * n / k));
}

Ids Sorted(Ids v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("order by one metric is index_to_sample read front to back", "[order]") {
  Analysis a(DefaultIds(1000));
  const Ids v = RandomValues(1000, 0, 40, 1);
  a.Add("m", v);
  Result<Ids> order = a.Order(Options({"m"}));
  REQUIRE(order.ok());
  CHECK(*order == ReferenceOrder(a.ids, {v}, false));
  const test::Rows rows = test::ReadRows(a.path + "/m/m_index_to_sample");
  Ids flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  CHECK(*order == flat);
}

TEST_CASE("order in buckets: sorted by bucket, shuffled within by the seed", "[order]") {
  Analysis a(DefaultIds(1003));
  const Ids v = RandomValues(1003, 0, 9, 2);
  a.Add("m", v);
  const Ids sorted = ReferenceOrder(a.ids, {v}, false);
  const uint64_t k = 7;
  Result<Ids> order = a.Order(Options({"m"}, k, 5));
  REQUIRE(order.ok());
  CHECK(Sorted(*order) == DefaultIds(1003));  // a permutation
  for (uint64_t b = 0; b < k; ++b) {
    CHECK(Sorted(Bucket(*order, k, b)) == Sorted(Bucket(sorted, k, b)));
    if (b + 1 == k) continue;
    int64_t hi = INT64_MIN, lo = INT64_MAX;
    for (int64_t id : Bucket(*order, k, b)) hi = std::max(hi, v[static_cast<size_t>(id)]);
    for (int64_t id : Bucket(*order, k, b + 1)) lo = std::min(lo, v[static_cast<size_t>(id)]);
    CHECK(hi <= lo);
  }
  CHECK(*order != sorted);
  Result<Ids> again = a.Order(Options({"m"}, k, 5));
  REQUIRE(again.ok());
  CHECK(*again == *order);
  Result<Ids> other = a.Order(Options({"m"}, k, 6));
  REQUIRE(other.ok());
  CHECK(*other != *order);
  CHECK(Sorted(Bucket(*other, k, 3)) == Sorted(Bucket(*order, k, 3)));
}

TEST_CASE("order with one bucket shuffles everything, with N buckets nothing", "[order]") {
  Analysis a(DefaultIds(300));
  const Ids v = RandomValues(300, -5, 5, 3);
  a.Add("m", v);
  const Ids sorted = ReferenceOrder(a.ids, {v}, false);
  Result<Ids> one = a.Order(Options({"m"}, 1, 0));
  REQUIRE(one.ok());
  CHECK(Sorted(*one) == DefaultIds(300));
  CHECK(*one != sorted);
  Ids expected = sorted;  // the documented shuffle of bucket 0, seed 0
  ShuffleBucket(expected, 0, 0);
  CHECK(*one == expected);
  Result<Ids> each = a.Order(Options({"m"}, 300, 9));
  REQUIRE(each.ok());
  CHECK(*each == sorted);
}

TEST_CASE("order descending: values descending, ties by ascending id", "[order]") {
  Analysis a(DefaultIds(500));
  const Ids v = RandomValues(500, 0, 30, 4);
  a.Add("m", v);
  const Ids expected = ReferenceOrder(a.ids, {v}, true);
  Result<Ids> order = a.Order(Options({"m"}, 0, 0, true));
  REQUIRE(order.ok());
  CHECK(*order == expected);
  Result<Ids> buckets = a.Order(Options({"m"}, 4, 1, true));
  REQUIRE(buckets.ok());
  for (uint64_t b = 0; b < 4; ++b)
    CHECK(Sorted(Bucket(*buckets, 4, b)) == Sorted(Bucket(expected, 4, b)));
}

TEST_CASE("order by several metrics is lexicographic, then by id", "[order]") {
  Analysis a(DefaultIds(2000));
  const Ids v1 = RandomValues(2000, 0, 5, 5), v2 = RandomValues(2000, -3, 3, 6),
            v3 = RandomValues(2000, 0, 300, 7);
  a.Add("a", v1);
  a.Add("b", v2);
  a.Add("c", v3);
  for (bool descending : {false, true}) {
    Result<Ids> two = a.Order(Options({"a", "b"}, 0, 0, descending));
    REQUIRE(two.ok());
    CHECK(*two == ReferenceOrder(a.ids, {v1, v2}, descending));
    Result<Ids> three = a.Order(Options({"b", "c", "a"}, 0, 0, descending));
    REQUIRE(three.ok());
    CHECK(*three == ReferenceOrder(a.ids, {v2, v3, v1}, descending));
  }
  Result<Ids> bucketed = a.Order(Options({"a", "b"}, 10, 3));
  REQUIRE(bucketed.ok());
  const Ids sorted = ReferenceOrder(a.ids, {v1, v2}, false);
  for (uint64_t b = 0; b < 10; ++b) {
    Ids expected = Bucket(sorted, 10, b);
    ShuffleBucket(expected, 3, b);
    CHECK(Bucket(*bucketed, 10, b) == expected);
  }
}

TEST_CASE("order with sample_indices ids: one metric, not several", "[order]") {
  Ids ids;  // non-contiguous, some negative
  for (int64_t i = 0; i < 400; ++i) ids.push_back((i * 7919) % 1009 - 300);
  REQUIRE(std::set<int64_t>(ids.begin(), ids.end()).size() == ids.size());
  Analysis a(ids);
  const Ids v = RandomValues(400, 0, 12, 8), w = RandomValues(400, 0, 12, 9);
  a.Add("m", v);
  a.Add("w", w);
  Result<Ids> order = a.Order(Options({"m"}));
  REQUIRE(order.ok());
  CHECK(*order == ReferenceOrder(ids, {v}, false));
  Result<Ids> bucketed = a.Order(Options({"m"}, 3, 2, true));
  REQUIRE(bucketed.ok());
  CHECK(Sorted(*bucketed) == Sorted(ids));
  Result<Ids> two = a.Order(Options({"m", "w"}));
  REQUIRE_FALSE(two.ok());
  CHECK(two.status().code() == Status::Code::kBadInput);
  CHECK_THAT(two.status().message(),
             Catch::Contains("w_sample_to_metric") && Catch::Contains("sample_indices"));
}

TEST_CASE("order refuses several metrics when the ids are a permutation of positions", "[order]") {
  Ids ids = DefaultIds(200);
  std::reverse(ids.begin(), ids.end());
  Analysis a(ids);
  a.Add("m", RandomValues(200, 0, 3, 10));
  a.Add("w", RandomValues(200, 0, 50, 11));
  Result<Ids> two = a.Order(Options({"m", "w"}));
  REQUIRE_FALSE(two.ok());
  CHECK_THAT(two.status().message(), Catch::Contains("is not indexed by sample id"));
}

TEST_CASE("order refuses bad input in one line and writes nothing", "[order]") {
  Analysis a(DefaultIds(50));
  a.Add("m", RandomValues(50, 0, 3, 12));
  const std::string out = a.scratch / "order.npy";
  const auto refused = [&](OrderOptions o, const std::string& text) {
    if (o.analysis.empty()) o.analysis = a.path;
    if (o.out.empty()) o.out = out;
    Result<uint64_t> r = WriteTrainingOrder(o);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Status::Code::kBadInput);
    CHECK_THAT(r.status().message(), Catch::Contains(text));
    CHECK(r.status().message().find('\n') == std::string::npos);
    CHECK_FALSE(fs::exists(o.out));
    CHECK_FALSE(fs::exists(o.out + ".tmp"));
  };
  refused(Options({"n"}), "no metric \"n\" (did you mean \"m\"?); its metrics: m");
  refused(Options({"m"}, 51), "more buckets than");
  refused(Options({"m", "m"}), "--metric m is given twice");
  OrderOptions missing = Options({"m"});
  missing.analysis = a.scratch / "nothing";
  refused(missing, "no such directory");
  OrderOptions no_folder = Options({"m"});
  no_folder.out = a.scratch / "no/order.npy";
  refused(no_folder, "no such folder");
  a.ids = DefaultIds(49);
  a.Add("short", RandomValues(49, 0, 3, 13));
  refused(Options({"m", "short"}), "disagree on the number of samples");
  fs::copy_file(a.path + "/m/m_sample_to_metric.idx", a.path + "/short/short_sample_to_metric.idx",
                fs::copy_options::overwrite_existing);
  fs::copy_file(a.path + "/m/m_sample_to_metric.bin", a.path + "/short/short_sample_to_metric.bin",
                fs::copy_options::overwrite_existing);
  refused(Options({"short"}),
          "short_index_to_sample: holds 49 sample ids but sample_to_metric has 50 samples");
  Analysis mixed(DefaultIds(60));  // m's ids are not positions, w's are: refused while writing
  mixed.Add("w", RandomValues(60, 0, 3, 14));
  mixed.ids[59] = 1000;
  mixed.Add("m", RandomValues(60, 0, 3, 15));
  OrderOptions late = Options({"m", "w"});
  late.analysis = mixed.path;
  refused(late, "has no row for sample id 1000");
  fs::create_directories(a.path + "/sum");
  test::WriteRows(a.path + "/sum/sum_metric_value", DType::kU8, {{1, 2}});
  refused(Options({"sum"}), "accumulate_value_over_samples");
}

TEST_CASE("order's shuffle is the documented splitmix64 Fisher-Yates", "[order]") {
  SplitMix64 rng(1234567);  // the reference outputs of splitmix64.c
  CHECK(rng.Next() == 6457827717110365317ULL);
  CHECK(rng.Next() == 3203168211198807973ULL);
  CHECK(rng.Next() == 9817491932198370423ULL);
  for (size_t n : {0, 1, 2, 15, 16, 17, 32, 33, 34, 35, 64, 65, 1000}) {
    for (uint64_t bucket : {0, 1, 99}) {
      Ids shuffled = DefaultIds(n), plain = DefaultIds(n);
      ShuffleBucket(shuffled, 42, bucket);
      SplitMix64 g(SplitMix64::Mix(SplitMix64::Mix(42) + bucket));
      for (size_t i = n; i-- > 1;) {  // the specification, one step at a time
        const auto j =
            static_cast<size_t>((static_cast<unsigned __int128>(g.Next()) * (i + 1)) >> 64);
        std::swap(plain[i], plain[j]);
      }
      CHECK(shuffled == plain);
    }
  }
}

}  // namespace dsanalyze
