#include "util/ordered_double.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace dsanalyze {
namespace {

TEST_CASE("ordered doubles: integer order is double order, and the map inverts",
          "[ordered_double]") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> xs = {-kInf,  -1e308,
                            -1.5,   -std::numeric_limits<double>::denorm_min(),
                            0.0,    std::numeric_limits<double>::denorm_min(),
                            1e-300, 0.5,
                            1.5,    1e308,
                            kInf};
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  for (int i = 0; i < 2000; ++i) xs.push_back(uniform(rng));
  for (int i = 0; i < 2000; ++i)
    xs.push_back(std::ldexp(uniform(rng), static_cast<int>(rng() % 2000) - 1000));
  for (double a : xs) {
    CHECK(FromOrderedBits(OrderedBits(a)) == a);
    for (double b : {xs[7], xs[100], xs[3000], -a, a * 2}) {
      INFO(a << " vs " << b);
      CHECK((a < b) == (OrderedBits(a) < OrderedBits(b)));
      CHECK((a == b) == (OrderedBits(a) == OrderedBits(b)));
    }
  }
  std::vector<double> sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> by_bits = xs;
  std::sort(by_bits.begin(), by_bits.end(),
            [](double a, double b) { return OrderedBits(a) < OrderedBits(b); });
  CHECK(sorted == by_bits);
}

TEST_CASE("ordered doubles: -0.0 and +0.0 are one value, below every positive",
          "[ordered_double]") {
  CHECK(OrderedBits(-0.0) == OrderedBits(0.0));
  CHECK(OrderedBits(0.0) == 0);
  CHECK(OrderedBits(-std::numeric_limits<double>::denorm_min()) < 0);
  CHECK(OrderedBits(std::numeric_limits<double>::infinity()) < std::numeric_limits<int64_t>::max());
}

}  // namespace
}  // namespace dsanalyze
