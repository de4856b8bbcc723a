// Cross-rank reductions of metric results: the one exact sum and the one
// global min/max that the dependency pass and the metric jobs use.
//
// Both are collective: every rank calls them with spans of equal length (the
// same metric on every rank) and gets the same result, or the same error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "util/status.h"

namespace dsanalyze {

// The element-wise sum over all ranks of equal-length int64 vectors, on every
// rank, exact: a sum outside int64 is a BadInput error naming `what` and the
// element's index in the vector. Sent in bounded chunks, so any length works.
Result<std::vector<int64_t>> AllreduceSumChecked(const Comm& comm, std::span<const int64_t> local,
                                                 const std::string& what);

// The smallest and largest value over every rank's `local` values. When no
// rank has a value: min = INT64_MAX, max = INT64_MIN.
struct ValueRange {
  int64_t min;
  int64_t max;
};
ValueRange GlobalMinMax(const Comm& comm, std::span<const int64_t> local);
// The same from each rank's own range (min > max on a rank with no value).
ValueRange GlobalMinMax(const Comm& comm, ValueRange local);

}  // namespace dsanalyze
