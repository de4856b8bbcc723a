// One schedule_based metric's index files as DeepSpeed's sampler reads them,
// and the samples its two lookups return (deepspeed/runtime/data_pipeline/
// data_sampling/data_sampler.py at 38327e07f), as ranges of positions.
//
// A position is an element's offset in index_to_sample.bin: rows are laid out
// back to back, so the file is one sequence of sample ids. Both lookups return
// a contiguous run of that sequence:
//  - get_sample_based_on_metric_value(start, end) concatenates the rows r of
//    index_to_sample whose index_to_metric row r holds a value v with
//    start < v <= end. index_to_metric is ascending, so those rows are
//    consecutive;
//  - get_sample_based_on_metric_percentile(start, end), with n = the ids in
//    index_to_sample and per = n // max_difficulty, walks the rows and takes
//    positions [per * start, per * end), or up to n when end ==
//    max_difficulty. Row boundaries only decide where it stops reading, so
//    the plain index_to_sample and its percentile_merged copy (the same
//    sequence, grouped in larger rows) give the same samples.
// Percentile difficulties are >= 0 (curriculum/ds_config.h), so DeepSpeed's
// slices never take Python's negative-index meaning.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "curriculum/ds_config.h"
#include "format/indexed_dataset.h"
#include "output/metric_files.h"
#include "util/status.h"

namespace dsanalyze {

// Positions [begin, end); empty when end <= begin.
struct PositionRange {
  uint64_t begin = 0;
  uint64_t end = 0;
  uint64_t size() const { return end > begin ? end - begin : 0; }
};

// Opens the files `metric` (schedule_based) reads, as output/metric_files.h
// MetricFiles: index_to_sample, and for a value-based metric index_to_metric
// (sample_to_metric is not read). BadInput, naming the file, when one cannot
// be opened or index_to_metric breaks that reader's rules 1-3 (one value a
// row, int64, strictly ascending), or when index_to_sample has more rows than
// index_to_metric (DeepSpeed would fail with an IndexError; fewer is how the
// percentile_merged file pairs with it, which curriculum/warnings.h tells).
// The files are read with `table`, the analysis's recorded dtype-code table,
// or unset: the one each file fits (output/analysis_files.h).
Result<MetricFiles> OpenMetricIndex(const CurriculumMetricConfig& metric,
                                    std::optional<CodeTable> table);

// get_sample_based_on_metric_value(above, up_to); `above` nullopt is -inf.
PositionRange ValueSlice(const MetricFiles& index, std::optional<int64_t> above, int64_t up_to);

// The value of the last index_to_sample row (the largest DeepSpeed's value
// lookup reads), nullopt without rows. Value-based metrics only.
std::optional<int64_t> LargestValue(const MetricFiles& index);

// get_sample_based_on_metric_percentile(start, end) over `total` ids (the
// data_1epoch_size DeepSpeed computes once) with max_difficulty `max`.
PositionRange PercentileSlice(uint64_t total, int64_t max, int64_t start, int64_t end);

// Calls f(id) for the sample id at each position of `range`, in order.
template <class F>
void ForEachId(const MetricFiles& index, PositionRange range, F&& f) {
  if (range.size() == 0) return;
  const ElementView all = index.index_to_sample.elements();
  VisitIntDType(all.dtype, [&](auto tag) {
    const auto ids = all.as<decltype(tag)>();
    for (uint64_t p = range.begin; p < range.end; ++p) f(static_cast<int64_t>(ids[p]));
  });
}

}  // namespace dsanalyze
