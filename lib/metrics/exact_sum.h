// Exact sums of non-negative doubles, rounded once at the end.
//
// vocab_rarity adds up to millions of per-token terms and truncates the sum to
// an integer, so the last bit matters: a plain loop, a pairwise sum and a
// vectorised sum can land on different sides of an integer. Here every term is
// first written exactly as an integer count of 2^-F units (F chosen so that
// each term of a table is exact), the counts are added in a 192-bit integer
// (no rounding at all), and the total is rounded to the nearest double once,
// ties to even: the correctly rounded sum, whatever the order of the terms.
//
// Plain values; an ExactSum belongs to one thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

using Units = unsigned __int128;

// The fixed-point scale for a table of terms: every value is an integer
// multiple of 2^-frac_bits, and below 2^(128 - frac_bits), so a term fits in
// 128 bits and a 192-bit sum of up to 2^64 terms cannot overflow.
struct FixedPointScale {
  int frac_bits = 0;
};

// The smallest scale at which every value is exact. Values must be finite and
// non-negative; a table whose range does not fit 128 bits is an error.
Result<FixedPointScale> ScaleFor(std::span<const double> values);

// value · 2^frac_bits, exactly (value must be representable at `scale`).
Units ToUnits(double value, FixedPointScale scale);

// Terms split into 64-bit words, for adding many of them fast: term t is
// words[t * count] + words[t * count + 1] * 2^64 (count 1 or 2). A table whose
// terms are all below 2^64 (the usual one) has one word a term: a token costs
// one load and one 128-bit add. Each word column sums exactly in a Units (up
// to 2^64 terms, no carry out), and ExactSum::AddWordSums then gives the same
// sum as adding the terms one by one.
struct WordTable {
  // The fewest words (1 or 2) that hold every term.
  static WordTable From(std::span<const Units> terms);
  int count = 1;
  std::vector<uint64_t> words;
};

class ExactSum {
 public:
  void Add(Units units) {
    low_ += units;
    high_ += low_ < units;  // carry out of the low 128 bits
  }
  // Adds word_sums[0] + word_sums[1] * 2^64 (one or two entries): the column
  // sums of terms split into 64-bit words (WordTable), summed by the caller.
  void AddWordSums(std::span<const Units> word_sums);
  // The sum in units of 2^-frac_bits, rounded to the nearest double (ties to even).
  double ToDouble(FixedPointScale scale) const;

 private:
  Units low_ = 0;
  uint64_t high_ = 0;
};

}  // namespace dsanalyze
