// Element-wise int64 accumulation that reports overflow instead of wrapping:
// the one place where metric sums (map threads, ranks, plugin batches) are
// added.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "util/status.h"

namespace dsanalyze {

// acc += add, element-wise (the spans have equal length). On int64 overflow
// returns BadInput "<what>: the sum of element <i> overflows int64"; acc is
// then partly updated and must be discarded.
inline Status AddChecked(std::span<int64_t> acc, std::span<const int64_t> add,
                         const std::string& what) {
  for (size_t i = 0; i < acc.size(); ++i) {
    if (__builtin_add_overflow(acc[i], add[i], &acc[i]))
      return Status::BadInput(what + ": the sum of element " + std::to_string(i) +
                              " overflows int64");
  }
  return Status::OK();
}

}  // namespace dsanalyze
