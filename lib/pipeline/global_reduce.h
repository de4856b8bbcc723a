// Cross-rank reductions of metric results: the one exact sum and the one
// global min/max that the dependency pass and the metric jobs use.
//
// Both are collective: every rank calls them with spans of equal length (the
// same metric on every rank) and gets the same result, or the same error.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
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

// This rank's count of each value in [base, base + size), for the rank sums
// (rank_sums.h). The table comes from calloc, which for tables this large
// usually maps fresh zero pages, so only the pages the values fall on are
// touched: a table of millions of entries over a few thousand distinct
// values then costs a few pages (at worst, calloc zeroes it: 16 MiB).
struct ValueCounts {
  ValueCounts() = default;
  ValueCounts(int64_t base, size_t size);  // all zero
  int64_t base = 0;
  size_t size = 0;
  std::unique_ptr<uint64_t[], void (*)(void*)> counts{nullptr, std::free};
  // Counts v, when it is in the table.
  void Add(int64_t v) {
    const uint64_t at = static_cast<uint64_t>(v) - static_cast<uint64_t>(base);  // wraps below
    if (at < size) ++counts[at];
  }
  // The count of value v (0 outside the table).
  uint64_t of(int64_t v) const;
};
// GlobalMinMax that counts `local` into `counts` in the same pass (values
// outside its table are left out).
ValueRange GlobalMinMax(const Comm& comm, std::span<const int64_t> local, ValueCounts* counts);
// The same from each rank's own range (min > max on a rank with no value).
ValueRange GlobalMinMax(const Comm& comm, ValueRange local);

}  // namespace dsanalyze
