// An order-preserving map between doubles and int64: a < b exactly when
// OrderedBits(a) < OrderedBits(b), for every non-NaN double. -0.0 and +0.0
// both map to 0 (they compare equal). NaN has no place in the order; the
// score metric keeps it apart (metrics/score_metric.cc).
//
// Lets float scores travel through the pipeline's int64 machinery (ranges,
// keys, the sample sort) when only their order matters. Pure functions.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace dsanalyze {

inline int64_t OrderedBits(double x) {
  const int64_t bits = std::bit_cast<int64_t>(x + 0.0);  // -0.0 + 0.0 == +0.0
  // Negative doubles order backwards as integers: flip all but the sign bit.
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

inline double FromOrderedBits(int64_t v) {
  return std::bit_cast<double>(v < 0 ? v ^ std::numeric_limits<int64_t>::max() : v);
}

}  // namespace dsanalyze
