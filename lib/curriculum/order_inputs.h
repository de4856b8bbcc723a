// The metric files `dsanalyze order` reads (docs/format.md §2.12), opened and
// checked before anything is written, and the two ways it reads them: ids
// widened to int64, and a metric's values looked up by sample id.
//
// Everything is memory-mapped; nothing here holds more than O(1) memory per
// metric. Views are valid while the MetricFiles lives.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/indexed_dataset.h"
#include "output/metric_files.h"
#include "util/status.h"

namespace dsanalyze {

// BadInput unless `metric` is a single-value metric of the analysis in
// `analysis` (read into `folder`): the line lists the metrics it has, or says
// it is an accumulate metric.
Status FindSingleValueMetric(const std::string& analysis, const AnalysisFolder& folder,
                             const std::string& metric);

// Opens `metrics`, in the order given, from the analysis in `analysis`, as
// output/metric_files.h MetricFiles (sample_to_metric opened for the later
// ones, counted for the first). BadInput, in one line naming the path, when
// `analysis` is not an analysis folder; a metric is not in it (the line lists
// the metrics it has) or is an accumulate metric; a file cannot be opened or
// breaks a rule of output/metric_files.h; the metrics disagree on the number
// of samples N (ids in each index_to_sample); or, with several metrics, when
// a later metric's sample_to_metric is not indexed by sample id
// (CheckIndexedById).
Result<std::vector<MetricFiles>> OpenOrderMetrics(const std::string& analysis,
                                                  const std::vector<std::string>& metrics);

// Checks that row `id` of m's sample_to_metric holds the value index_to_sample
// gives sample `id`, for every id: true when the ids are the iteration
// positions 0..N-1, false (BadInput naming the first id that breaks it) for
// an analysis made with dataset.sample_indices (format.md §2.7), whose values
// cannot be looked up by id without a map of all N samples. One pass over
// the index files with random reads of sample_to_metric.
Status CheckIndexedById(const MetricFiles& m);

// out[k * stride] = the value of sample ids[k], read from row ids[k] of m's
// sample_to_metric (valid once CheckIndexedById passed). Requires an opened
// m.sample_to_metric. BadInput for an id
// outside 0..N-1.
Status ValuesById(const MetricFiles& m, std::span<const int64_t> ids, int64_t* out, size_t stride);

}  // namespace dsanalyze
