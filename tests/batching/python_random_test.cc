// PythonRandom against values Python 3.11 printed for
//   r = random.Random(seed); [r.getrandbits(32) for _ in range(3)],
//   r.getrandbits(40), r.getrandbits(7), r._randbelow(1000003)
// and random.Random(99).shuffle(list(range(10))). The whole-length shuffles
// are compared with Python at test time in batching.random_order.
#include "batching/python_random.h"

#include <catch2/catch.hpp>
#include <numeric>
#include <vector>

namespace dsanalyze {
namespace {

struct Expected {
  int64_t seed;
  uint32_t first[3];
  uint64_t bits40;
  uint64_t bits7;
  uint64_t below;
};

TEST_CASE("batching: PythonRandom draws what random.Random(seed) draws", "[batching]") {
  const Expected cases[] = {
      {0, {3626764237U, 1654615998U, 3255389356U}, 463385069186ULL, 5, 271493},
      {1234, {4150886329U, 3342196574U, 1892932127U}, 4796836454ULL, 11, 955227},
      {4294967301LL, {675479763U, 2085189291U, 1213270837U}, 665247166058ULL, 106, 15228},
      {-7, {1390851128U, 4071050724U, 647892279U}, 714660325134ULL, 6, 75954},
      {INT64_MAX, {1359979423U, 2819855560U, 2711238091U}, 881038174048ULL, 62, 475491}};
  for (const Expected& e : cases) {
    INFO("seed " << e.seed);
    PythonRandom r(e.seed);
    for (uint32_t v : e.first) CHECK(r.GetRandBits(32) == v);
    CHECK(r.GetRandBits(40) == e.bits40);
    CHECK(r.GetRandBits(7) == e.bits7);
    CHECK(r.RandBelow(1000003) == e.below);
  }
}

TEST_CASE("batching: PythonShuffle permutes as random.shuffle does", "[batching]") {
  std::vector<int> x(10);
  std::iota(x.begin(), x.end(), 0);
  PythonRandom r(99);
  PythonShuffle<int>(x, r);
  CHECK(x == std::vector<int>{7, 2, 0, 8, 5, 1, 4, 3, 9, 6});
}

}  // namespace
}  // namespace dsanalyze
