// The sample ids of an analysis in difficulty order (docs/format.md §2.12),
// read front to back in pieces of any size:
//  - ascending: by the first metric's value, then the second's, ..., then id;
//  - descending: every metric's value descending, ties still by ascending id.
// With one metric this is index_to_sample read front to back (ascending), or
// its rows back to front with each row front to back (descending), widened to
// int64 straight from the memory map. With several, each row of the first
// metric (the ids of one of its values) is loaded with the later metrics'
// values and sorted: memory ≈ (20 + 8 · later metrics) bytes × the largest
// row, nothing else is sized by N.
//
// Not thread-safe; owns the MetricFiles it reads.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "curriculum/order_inputs.h"
#include "util/status.h"

namespace dsanalyze {

class SortedIds {
 public:
  // `metrics` as OpenOrderMetrics returns them: at least one, checked.
  SortedIds(std::vector<MetricFiles> metrics, bool descending);

  uint64_t size() const { return metrics_[0].index_to_sample.num_elements(); }

  // Fills `out` with the next out.size() ids of the order; the pieces asked
  // for must add up to at most size(). BadInput for a sample id of the first
  // metric that a later metric has no row for.
  Status Next(std::span<int64_t> out);

 private:
  Status LoadRow();  // the next row of the first metric into row_
  Status SortRow(uint64_t row);

  std::vector<MetricFiles> metrics_;
  bool descending_;
  uint64_t rows_loaded_ = 0;     // rows of the first metric's index_to_sample taken
  ElementView row_{};            // what is left of the current row
  std::vector<int64_t> sorted_;  // the current row, sorted, with several metrics
  std::vector<int64_t> keys_;    // its later metrics' values, one stride per id
};

}  // namespace dsanalyze
