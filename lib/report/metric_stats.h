// Summary statistics of finished metric files, read in O(distinct values).
//
// A single-value metric's distribution comes from its index files alone:
// index_to_metric gives the distinct values (ascending) and index_to_sample's
// row sizes give how many samples have each value — no per-sample data is
// read, so memory is O(distinct values) whatever N is. An accumulate metric's
// statistics come from its one metric_value row. Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "format/dtype.h"
#include "page/histogram_svg.h"
#include "util/status.h"

namespace dsanalyze {

// The metric's values and counts (CountedValues: what its histogram draws, and
// NearestRankPercentile's input), and the dtypes its files were written with.
struct ValueDistribution : CountedValues {
  DType metric_dtype = DType::kI64;
  DType sample_dtype = DType::kI64;
};

// Reads save_path/metric/metric_{index_to_metric,index_to_sample}, written
// with code table `table` (the run's output.dtype_codes). BadInput naming the
// file if they are invalid or break output/metric_files.h rules 1-4 (one
// value a row, int64, strictly ascending, one index_to_sample row a value).
Result<ValueDistribution> ReadValueDistribution(const std::string& save_path,
                                                const std::string& metric, CodeTable table);

// The components of sample ids (a blend's positions): fills the second span
// (as long as the first) with the component of each id of the first
// (Dataset::ComponentsOf).
using ComponentsOfIds = std::function<void(std::span<const int64_t>, std::span<uint32_t>)>;

// The distribution of each of a blend's `components` components: the metric's
// values over the samples components_of names, for every sample id of
// index_to_sample. Reads every id once, in pieces (O(N) time, O(distinct
// values × components) memory). BadInput naming the file as
// ReadValueDistribution; Internal if components_of names no component.
Result<std::vector<CountedValues>> ReadComponentDistributions(const std::string& save_path,
                                                              const std::string& metric,
                                                              CodeTable table, size_t components,
                                                              const ComponentsOfIds& components_of);

// Exact sum of all samples' values (value × count, in 128 bits).
__int128 SumOfValues(const CountedValues& d);

// The spread of the samples' values: population standard deviation, the
// interquartile range p75 − p25 (nearest rank, as the percentiles) and the
// skewness (third standardized moment; 0 for a constant metric). From the
// counted values in long double: O(distinct values).
struct Spread {
  double std = 0;
  double iqr = 0;
  double skew = 0;
};
Spread SpreadOf(const CountedValues& d);  // requires d.samples > 0

// A sample at one end of a metric's distribution.
struct Extreme {
  uint64_t sample;  // its id (its row of sample_to_metric)
  int64_t value;
};
struct Extremes {
  std::vector<Extreme> lowest;   // ascending value; equal values by ascending id
  std::vector<Extreme> highest;  // descending value; equal values by ascending id
};
// Up to `k` samples at each end (fewer when N < k), read from
// save_path/metric/metric_index_to_sample (written with `table`) and `d`, its
// distribution: only the rows at the ends are read, in chunks, so memory is
// O(k) whatever the size of a row.
Result<Extremes> ReadExtremes(const std::string& save_path, const std::string& metric,
                              const ValueDistribution& d, CodeTable table, size_t k);

// summary.json lists percentiles p0, p5, ..., p100 under these keys ("p5").
inline constexpr int kSummaryPercentileStep = 5;
std::string PercentileKey(int p);

struct AccumulateStats {
  DType dtype = DType::kI64;
  uint64_t length = 0;  // elements of the metric_value row
  __int128 sum = 0;     // of the row's elements
  __int128 min = 0;
  __int128 max = 0;
};

// Reads save_path/metric/metric_metric_value, written with `table` (BadInput
// when it breaks output/metric_files.h rules 6 and 2: one non-empty row of
// int64 values).
Result<AccumulateStats> ReadAccumulateStats(const std::string& save_path, const std::string& metric,
                                            CodeTable table);

}  // namespace dsanalyze
