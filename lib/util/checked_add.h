// int64 addition that reports overflow instead of wrapping: the one checked
// add that metric sums (samples, map threads, ranks, plugin batches) use.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "util/status.h"

namespace dsanalyze {

// *acc += add, unless the sum overflows int64: then returns false and leaves
// *acc unchanged.
[[nodiscard]] inline bool AddChecked(int64_t* acc, int64_t add) {
  int64_t sum;
  if (__builtin_add_overflow(*acc, add, &sum)) return false;
  *acc = sum;
  return true;
}

// acc += add, element-wise (the spans have equal length). On int64 overflow
// returns BadInput "<what>: the sum of element <i> overflows int64"; acc is
// then partly updated and must be discarded.
inline Status AddChecked(std::span<int64_t> acc, std::span<const int64_t> add,
                         const std::string& what) {
  for (size_t i = 0; i < acc.size(); ++i) {
    if (!AddChecked(&acc[i], add[i]))
      return Status::BadInput(what + ": the sum of element " + std::to_string(i) +
                              " overflows int64");
  }
  return Status::OK();
}

}  // namespace dsanalyze
