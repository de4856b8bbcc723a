#include "sort/local_sort.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <random>

#include "sort/sort_key.h"
#include "util/work_split.h"

namespace dsanalyze {
namespace {

// The reference: encode every pair, then std::sort.
template <class Key>
std::vector<Key> Reference(const std::vector<int64_t>& values, const LocalIds& ids,
                           const KeyCodec<Key>& c) {
  std::vector<Key> keys;
  for (size_t i = 0; i < values.size(); ++i) keys.push_back(c.Encode(values[i], ids[i]));
  std::sort(keys.begin(), keys.end());
  return keys;
}

TEST_CASE("KeyCodec round-trips pairs and orders them lexicographically", "[sort]") {
  const KeyLayout l = MakeKeyLayout({-5, 1000}, {0, 99999});
  REQUIRE(l.fits_u64());
  KeyCodec<uint64_t> c{l};
  for (int64_t v : {-5, 0, 7, 1000})
    for (int64_t id : {0, 1, 4242, 99999}) {
      CHECK(c.Value(c.Encode(v, id)) == v);
      CHECK(c.Id(c.Encode(v, id)) == id);
    }
  CHECK(c.Encode(3, 99999) < c.Encode(4, 0));
  CHECK(c.Encode(3, 10) < c.Encode(3, 11));
}

TEST_CASE("Wide keys cover the full int64 range", "[sort]") {
  const KeyLayout l = MakeKeyLayout({INT64_MIN, INT64_MAX}, {0, 1000});
  REQUIRE_FALSE(l.fits_u64());
  KeyCodec<WideKey> c{l};
  CHECK(c.Value(c.Encode(INT64_MIN, 3)) == INT64_MIN);
  CHECK(c.Value(c.Encode(INT64_MAX, 3)) == INT64_MAX);
  CHECK(c.Encode(-1, 1000) < c.Encode(0, 0));
}

TEST_CASE("Radix sort of consecutive ids matches a comparison sort", "[sort]") {
  std::mt19937_64 rng(42);
  // Value ranges needing 0, 1, 8, 14, 16 (the widest single pass, through
  // 16-bit offsets), 17 (three passes), 20 and 40 bits.
  for (int64_t range : std::initializer_list<int64_t>{1, 2, 255, 10000, 1 << 16, 1 << 17, 1 << 20,
                                                      int64_t{1} << 40}) {
    for (unsigned threads : {1u, 3u}) {
      const int64_t n = 100000, first = 5000;
      const KeyLayout l = MakeKeyLayout({-7, range - 8}, {first, first + n - 1});
      KeyCodec<uint64_t> c{l};
      std::vector<int64_t> values(n);
      for (auto& v : values) v = static_cast<int64_t>(rng() % static_cast<uint64_t>(range)) - 7;
      LocalIds ids{first, {}};
      const std::vector<uint64_t> expected = Reference(values, ids, c);
      CHECK(SortPairs(std::move(values), ids, c, threads) == expected);
    }
  }
}

// The scatter streams whole cache lines and stores the lines a bucket shares
// with a neighbour key by key: sizes around a line (8 keys) and ranges with
// near-empty buckets exercise every edge, with 1 and 3 threads.
TEST_CASE("Radix sort is exact for every small size and at thread boundaries", "[sort]") {
  std::mt19937_64 rng(3);
  for (int64_t n = 0; n <= 70; ++n)
    for (int64_t range : {2, 5, 64, 3000}) {
      const KeyLayout l = MakeKeyLayout({0, range - 1}, {0, std::max<int64_t>(n - 1, 0)});
      KeyCodec<uint64_t> c{l};
      std::vector<int64_t> values(n);
      for (auto& v : values) v = static_cast<int64_t>(rng() % static_cast<uint64_t>(range));
      const LocalIds ids{0, {}};
      const std::vector<uint64_t> expected = Reference(values, ids, c);
      CHECK(SortPairs(std::move(values), ids, c, 1) == expected);
    }
  for (int64_t n : {(1 << 16) + 1, (1 << 16) + 13, 3 * (1 << 16) + 7}) {
    const KeyLayout l = MakeKeyLayout({0, 9}, {0, n - 1});
    KeyCodec<uint64_t> c{l};
    std::vector<int64_t> values(n);
    for (int64_t i = 0; i < n; ++i) values[i] = (i * 7 + i / 5) % 10;
    const LocalIds ids{0, {}};
    const std::vector<uint64_t> expected = Reference(values, ids, c);
    CHECK(SortPairs(std::move(values), ids, c, 3) == expected);
  }
}

// GroupIdsByValue against the ids of each value collected in a plain loop:
// counts, and the ids (stored in id_bytes bytes each) in value order.
void CheckGroups(std::vector<int64_t> values, int64_t first_id, int64_t value_min, size_t buckets,
                 size_t id_bytes, unsigned threads) {
  std::vector<std::vector<uint64_t>> want(buckets);
  for (size_t i = 0; i < values.size(); ++i)
    want[static_cast<size_t>(values[i] - value_min)].push_back(static_cast<uint64_t>(first_id) + i);
  const IdGroups g =
      GroupIdsByValue(std::move(values), first_id, value_min, buckets, id_bytes, threads);
  INFO("buckets " << buckets << ", id bytes " << id_bytes << ", threads " << threads);
  REQUIRE(g.counts.size() == buckets);
  CHECK(g.value_min == value_min);
  uint64_t at = 0;
  bool ids_match = true;
  for (size_t v = 0; v < buckets; ++v) {
    CHECK(g.counts[v] == want[v].size());
    for (uint64_t id : want[v]) {
      uint64_t got = 0;
      std::memcpy(&got, g.bytes() + at * id_bytes, id_bytes);  // little-endian, as the files
      ids_match = ids_match && got == id;
      ++at;
    }
  }
  CHECK(ids_match);
}

// Sizes around a cache line of each id width and across the thread split,
// one value, a few, the seed benchmark's 10^4 and the widest range (2^16).
TEST_CASE("GroupIdsByValue gives each value's ids in order, in every id width", "[sort]") {
  std::mt19937_64 rng(11);
  for (size_t id_bytes : {1u, 2u, 4u, 8u})
    for (int64_t n : {0, 1, 15, 17, 64, 65, 200}) {
      std::vector<int64_t> values(n);
      for (auto& v : values) v = static_cast<int64_t>(rng() % 5) - 2;
      CheckGroups(values, 3, -2, 5, id_bytes, 1);
    }
  for (size_t buckets : {size_t{1}, size_t{7}, size_t{10000}, kMaxIdGroups})
    for (size_t id_bytes : {4u, 8u})
      for (unsigned threads : {1u, 2u, 3u}) {
        const int64_t n = 3 * (1 << 16) + 7;
        std::vector<int64_t> values(n);
        for (auto& v : values) v = 1000 + static_cast<int64_t>(rng() % buckets);
        const int64_t first = id_bytes == 8 ? (int64_t{1} << 40) : 12345;
        CheckGroups(values, first, 1000, buckets, id_bytes, threads);
      }
}

TEST_CASE("Radix sort on full keys when ids are explicit", "[sort]") {
  std::mt19937_64 rng(7);
  const int64_t n = 70000;
  std::vector<int64_t> id_list(n);
  for (int64_t i = 0; i < n; ++i) id_list[i] = 3 * i + 11;
  std::shuffle(id_list.begin(), id_list.end(), rng);
  const KeyLayout l = MakeKeyLayout({-100, 100}, {11, 3 * (n - 1) + 11});
  KeyCodec<uint64_t> c{l};
  std::vector<int64_t> values(n);
  for (auto& v : values) v = static_cast<int64_t>(rng() % 201) - 100;
  LocalIds ids{0, id_list};
  const std::vector<uint64_t> expected = Reference(values, ids, c);
  CHECK(SortPairs(std::move(values), ids, c, 2) == expected);
}

TEST_CASE("Wide keys sort lexicographically", "[sort]") {
  std::mt19937_64 rng(9);
  const KeyLayout l = MakeKeyLayout({INT64_MIN, INT64_MAX}, {0, 999});
  KeyCodec<WideKey> c{l};
  // Both ends of the int64 range and values around zero, with many ties.
  const int64_t picks[] = {INT64_MIN, INT64_MIN / 2, -1, 0, 1, INT64_MAX / 2, INT64_MAX};
  std::vector<int64_t> values(1000);
  for (auto& v : values) v = picks[rng() % 7];
  LocalIds ids{0, {}};
  const std::vector<WideKey> expected = Reference(values, ids, c);
  CHECK(SortPairs(std::move(values), ids, c, 1) == expected);
}

TEST_CASE("SplitRange is floor(linspace) and covers the range", "[sort]") {
  // numpy: np.floor(np.linspace(0, 10, 4)) = [0, 3, 6, 10]
  CHECK(SplitRange({0, 10}, 3, 0).end == 3);
  CHECK(SplitRange({0, 10}, 3, 1).end == 6);
  CHECK(SplitRange({0, 10}, 3, 2).end == 10);
  CHECK(SplitRange({0, 2}, 4, 0).size() == 0);
  CHECK(SplitRange({0, 2}, 4, 1).begin == 0);
  CHECK(SplitRange({0, 2}, 4, 1).end == 1);
  CHECK(SplitRange({100, 110}, 2, 1).begin == 105);
  uint64_t covered = 0;
  for (uint64_t p = 0; p < 7; ++p) covered += SplitRange({5, 1000006}, 7, p).size();
  CHECK(covered == 1000001);
}

}  // namespace
}  // namespace dsanalyze
