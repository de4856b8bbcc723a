#include "metrics/exact_sum.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <span>
#include <vector>

namespace dsanalyze {
namespace {

// Sums `terms` exactly at the scale that fits them all.
double Exact(const std::vector<double>& terms) {
  Result<FixedPointScale> scale = ScaleFor(terms);
  REQUIRE(scale.ok());
  ExactSum sum;
  for (double t : terms) sum.Add(ToUnits(t, *scale));
  return sum.ToDouble(*scale);
}

TEST_CASE("exact sum: ten times 0.1 is 1, where a plain loop is not", "[metrics]") {
  const std::vector<double> terms(10, 0.1);
  double plain = 0;
  for (double t : terms) plain += t;
  CHECK(plain != 1.0);
  // 10 · RN(0.1) exceeds 1 by 5.6e-17, less than half an ulp of 1.
  CHECK(Exact(terms) == 1.0);
}

TEST_CASE("exact sum: rounds to nearest, ties to even, once", "[metrics]") {
  const double two53 = 0x1p53;
  CHECK(Exact({two53, 1}) == two53);            // tie: even is 2^53
  CHECK(Exact({two53, 1, 1, 1}) == two53 + 4);  // 2^53+3: tie, even is +4
  CHECK(Exact({two53, 1, 0.5}) == two53 + 2);   // just past the tie
  CHECK(Exact({two53 + 2, 1}) == two53 + 4);    // tie: 2^53+2 has an odd mantissa
  CHECK(Exact({}) == 0);
  CHECK(Exact({0, 0}) == 0);
  CHECK(Exact({0x1p-70, 0x1p-70}) == 0x1p-69);  // small terms stay exact
  // A carry out of the low 128 bits.
  ExactSum sum;
  const FixedPointScale scale{0};
  const Units almost = ~Units{0};  // 2^128 - 1
  sum.Add(almost);
  sum.Add(1);
  CHECK(sum.ToDouble(scale) == 0x1p128);
}

TEST_CASE("exact sum: any order gives the correctly rounded sum", "[metrics]") {
  // Terms in [0.5, 16): their exact sum of 1000 needs at most 67 bits, which
  // __float128 (113-bit mantissa) holds exactly; its rounding to double is the
  // reference.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(0.5, 16.0);
  for (int round = 0; round < 50; ++round) {
    std::vector<double> terms(1000);
    __float128 reference = 0;
    for (double& t : terms) {
      t = dist(rng);
      reference += t;
    }
    const double expected = static_cast<double>(reference);
    CHECK(Exact(terms) == expected);
    std::shuffle(terms.begin(), terms.end(), rng);
    CHECK(Exact(terms) == expected);
    std::sort(terms.begin(), terms.end());
    CHECK(Exact(terms) == expected);
  }
}

// The sum of `terms` through a WordTable: each word column summed in a
// Units over runs of `run` terms, each run's column sums then added.
ExactSum ByWordColumns(const std::vector<Units>& terms, size_t run) {
  const WordTable table = WordTable::From(terms);
  ExactSum sum;
  for (size_t b = 0; b < terms.size(); b += run) {
    Units columns[2] = {};
    for (size_t t = b; t < std::min(terms.size(), b + run); ++t)
      for (int w = 0; w < table.count; ++w) columns[w] += table.words[t * table.count + w];
    sum.AddWordSums(std::span<const Units>(columns, table.count));
  }
  return sum;
}

TEST_CASE("exact sum: word column sums give the sum of the terms", "[metrics]") {
  CHECK(WordTable::From(std::vector<Units>{0, 1, ~uint64_t{0}}).count == 1);
  CHECK(WordTable::From(std::vector<Units>{Units{1} << 64}).count == 2);
  CHECK(WordTable::From(std::vector<Units>{~Units{0}}).count == 2);
  std::mt19937_64 rng(11);
  // Widths of 1 and 2 words; 128-bit terms carry past 2^128 (the high word),
  // and below 2^40 the sums of 1000 terms are exact in a double.
  for (int bits : {20, 40, 63, 64, 90, 127, 128}) {
    std::vector<Units> terms(1000);
    ExactSum reference;
    for (Units& t : terms) {
      t = (Units{rng()} << 64 | rng()) >> (128 - bits);
      reference.Add(t);
    }
    CAPTURE(bits);
    for (size_t run : {size_t{1}, size_t{7}, terms.size()}) {
      const ExactSum sum = ByWordColumns(terms, run);
      for (int frac_bits : {0, 60, 127})
        CHECK(sum.ToDouble({frac_bits}) == reference.ToDouble({frac_bits}));
    }
  }
}

TEST_CASE("exact sum: the scale covers every term, or says why not", "[metrics]") {
  Result<FixedPointScale> s = ScaleFor(std::vector<double>{1.0, 0.75});
  REQUIRE(s.ok());
  CHECK(s->frac_bits == 53);  // 0.75's 53-bit mantissa ends at 2^-53
  CHECK(ToUnits(1.0, *s) == (Units{1} << 53));
  CHECK(ToUnits(0.75, *s) == (Units{3} << 51));
  CHECK(ScaleFor(std::vector<double>{-1.0}).status().code() == Status::Code::kInternal);
  CHECK_FALSE(ScaleFor(std::vector<double>{NAN}).ok());
  CHECK_FALSE(ScaleFor(std::vector<double>{INFINITY}).ok());
  // 2^100 and 2^-100 cannot share 128 bits.
  CHECK(ScaleFor(std::vector<double>{0x1p100, 0x1p-100}).status().message() ==
        "exact sum: terms span more than 128 bits (2^101 down to 2^-152)");
}

}  // namespace
}  // namespace dsanalyze
