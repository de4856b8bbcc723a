// The metric files `dsanalyze order` reads (docs/format.md §2.12), opened and
// checked before anything is written, and the two ways it reads them: ids
// widened to int64, and a metric's values looked up by sample id.
//
// Everything is memory-mapped; nothing here holds more than O(1) memory per
// metric. Views are valid while the OrderMetric lives.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "util/status.h"

namespace dsanalyze {

struct OrderMetric {
  std::string name;
  IndexedDataset index_to_sample;  // U rows, values ascending; ids ascending per row
  IndexedDataset index_to_metric;  // U rows of one value
  std::string values_prefix;       // S/M/M_sample_to_metric
  uint64_t sample_rows = 0;        // its rows, from its header
  // N rows of one value, in iteration order: opened (and its 12 bytes a row
  // of .idx validated) only where values are looked up by id, for the later
  // metrics; the first metric's is only counted.
  std::optional<IndexedDataset> sample_to_metric;
};

// Opens `metrics`, in the order given, from the analysis in `analysis`
// (sample_to_metric of the later ones only).
// BadInput, in one line naming the path, when `analysis` is not an analysis
// folder; a metric is not in it (the line lists the metrics it has) or is an
// accumulate metric; a file cannot be opened; the files disagree on the number
// of samples N (ids in each index_to_sample, rows of each sample_to_metric) or
// on the number of values U (rows of index_to_sample and index_to_metric);
// or, with several metrics, when a later metric's sample_to_metric is not
// indexed by sample id (CheckIndexedById).
Result<std::vector<OrderMetric>> OpenOrderMetrics(const std::string& analysis,
                                                  const std::vector<std::string>& metrics);

// Checks that row `id` of m's sample_to_metric holds the value index_to_sample
// gives sample `id`, for every id: true when the ids are the iteration
// positions 0..N-1, false (BadInput naming the first id that breaks it) for
// an analysis made with dataset.sample_indices (format.md §2.7), whose values
// cannot be looked up by id without a map of all N samples. One pass over
// the index files with random reads of sample_to_metric.
Status CheckIndexedById(const OrderMetric& m);

// out[k * stride] = the value of sample ids[k], read from row ids[k] of m's
// sample_to_metric (valid once CheckIndexedById passed). Requires an opened
// m.sample_to_metric. BadInput for an id
// outside 0..N-1.
Status ValuesById(const OrderMetric& m, std::span<const int64_t> ids, int64_t* out, size_t stride);

}  // namespace dsanalyze
