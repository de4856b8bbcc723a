// curriculum/row_cursors.h: entries placed in a pass over the ids land where
// the order (sorted by value, then id) puts their ids, in any window of
// positions, ascending and descending, for entries of several widths at once,
// each position placed once, and the state each range's copy of the placing
// functor gathered returned; a sample_to_metric that disagrees with
// index_to_sample is refused.
#include "curriculum/row_cursors.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>
#include <random>

#include "output/analysis_layout.h"
#include "support/output_fixture.h"
#include "support/test_util.h"

namespace dsanalyze {
namespace {

using Ids = std::vector<int64_t>;

struct CursorAnalysis {
  test::ScratchDir scratch;
  std::string path = scratch / "analysis";
  Ids ids;

  explicit CursorAnalysis(size_t n) : ids(n) { std::iota(ids.begin(), ids.end(), 0); }
  void Add(const std::string& metric, const Ids& values) {
    test::WriteSingleValueMetric(path, metric, values, ids);
  }
  Result<std::optional<RowCursors>> Open(std::vector<std::string> metrics, bool descending) {
    OrderOptions o;
    o.analysis = path;
    o.metrics = std::move(metrics);
    o.descending = descending;
    return RowCursors::Open(o);
  }
};

// Values drawn from `choices` (gaps between them: slots without a row).
Ids ValuesFrom(const Ids& choices, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<size_t> d(0, choices.size() - 1);
  Ids v(n);
  for (int64_t& x : v) x = choices[d(rng)];
  return v;
}

// The ids 0..n-1 sorted by value (descending or not), ties by ascending id.
Ids SortedIdsOf(const Ids& values, bool descending) {
  Ids ids(values.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::stable_sort(ids.begin(), ids.end(), [&](int64_t a, int64_t b) {
    return descending ? values[a] > values[b] : values[a] < values[b];
  });
  return ids;
}

template <class T>
std::vector<T> RandomEntries(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(rng());
  return v;
}

// A put(at, id) for Place: stages two arrays' entries, and counts the calls
// at each position; its own copy (a range's) counts its calls and ORs the
// wide entries it staged.
struct RecordingPut {
  const uint16_t* small;
  const uint64_t* wide;
  uint16_t* small_stage;
  uint64_t* wide_stage;
  int* calls;
  uint64_t placed = 0, bits = 0;
  void operator()(uint64_t at, uint64_t id) {
    small_stage[at] = small[id];
    wide_stage[at] = wide[id];
    ++calls[at];
    ++placed;
    bits |= wide[id];
  }
};

}  // namespace

TEST_CASE("row cursors place each entry at its id's position, in any window", "[order]") {
  const size_t n = 5000;
  CursorAnalysis a(n);
  const Ids values = ValuesFrom({-7, -3, 0, 1, 5, 12, 40}, n, 3);
  a.Add("m", values);
  const auto small = RandomEntries<uint16_t>(n, 1);
  const auto wide = RandomEntries<uint64_t>(n, 2);
  for (const bool descending : {false, true}) {
    Result<std::optional<RowCursors>> cursors = a.Open({"m"}, descending);
    REQUIRE(cursors.ok());
    REQUIRE(cursors->has_value());
    const Ids sorted = SortedIdsOf(values, descending);
    // Windows: everything, one position, and cuts inside rows at both ends.
    for (const auto& [begin, count] : std::vector<std::pair<uint64_t, uint64_t>>{
             {0, n}, {0, 1}, {n - 1, 1}, {17, 1234}, {2500, 2500}, {999, 0}}) {
      std::vector<uint16_t> small_stage(count);
      std::vector<uint64_t> wide_stage(count);
      std::vector<int> calls(count, 0);
      const Result<std::array<RecordingPut, RowCursors::kLanes>> puts =
          (*cursors)->Place(begin, count,
                            RecordingPut{small.data(), wide.data(), small_stage.data(),
                                         wide_stage.data(), calls.data()});
      REQUIRE(puts.ok());
      uint64_t placed = 0, bits = 0, wanted_bits = 0;
      for (const RecordingPut& p : *puts) {
        placed += p.placed;
        bits |= p.bits;
      }
      CHECK(placed == count);
      CHECK(std::all_of(calls.begin(), calls.end(), [](int c) { return c == 1; }));
      for (uint64_t k = 0; k < count; ++k) {
        const auto id = static_cast<size_t>(sorted[begin + k]);
        REQUIRE(small_stage[k] == small[id]);
        REQUIRE(wide_stage[k] == wide[id]);
        wanted_bits |= wide[id];
      }
      CHECK(bits == wanted_bits);
    }
  }
}

TEST_CASE("row cursors are for one metric of a narrow span of values", "[order]") {
  CursorAnalysis a(100);
  a.Add("narrow", ValuesFrom({0, 65535}, 100, 4));
  a.Add("wide", ValuesFrom({0, 65536}, 100, 5));
  Result<std::optional<RowCursors>> narrow = a.Open({"narrow"}, false);
  REQUIRE(narrow.ok());
  CHECK(narrow->has_value());
  for (const auto& metrics : {std::vector<std::string>{"wide"}, {"narrow", "wide"}}) {
    Result<std::optional<RowCursors>> none = a.Open(metrics, false);
    REQUIRE(none.ok());
    CHECK_FALSE(none->has_value());
  }
}

TEST_CASE("row cursors refuse a sample_to_metric that disagrees with its index", "[order]") {
  const size_t n = 200;
  CursorAnalysis a(n);
  a.Add("m", ValuesFrom({2, 4, 9}, n, 6));
  const std::string prefix = MetricFilePrefix(a.path, "m", kSampleToMetric);
  const DType dtype = test::ReadDType(prefix);
  const test::Rows rows = test::ReadRows(prefix);
  for (const auto& [value, message] : std::vector<std::pair<int64_t, std::string>>{
           {3, "samples, index_to_sample to"},  // a value between two rows'
           {rows[5][0] == 2 ? 4 : 2, "samples, index_to_sample to"},
           {1, "it holds 1 values outside index_to_metric's"},
           {10, "it holds 1 values outside index_to_metric's"}}) {
    test::Rows changed = rows;
    changed[5][0] = value;
    test::WriteRows(prefix, dtype, changed);
    Result<std::optional<RowCursors>> cursors = a.Open({"m"}, false);
    REQUIRE(cursors.ok());
    std::vector<uint32_t> entries(n), stage(n);
    const Status s = (*cursors)
                         ->Place(0, n, [&](uint64_t at, uint64_t id) { stage[at] = entries[id]; })
                         .status();
    CHECK(s.code() == Status::Code::kBadInput);
    CHECK_THAT(s.message(), Catch::Contains(prefix + ": disagrees with its index_to_sample: ") &&
                                Catch::Contains(message));
  }
}

}  // namespace dsanalyze
