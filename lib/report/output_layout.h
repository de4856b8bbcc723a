// Where a finished analysis keeps its files (docs/format.md §2).
//
// A save path S holds one folder per metric M. A single_value_per_sample
// metric has four .bin/.idx pairs, S/M/M_<kind> for the four kinds below; an
// accumulate_value_over_samples metric has one, S/M/M_metric_value. Anything
// else in S (summary.json, curriculum_config.json, hidden temporary folders,
// folders without metric files) is not a metric folder. verify, compare and
// the report writer all find metrics through this one definition.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

inline constexpr std::string_view kSampleToMetric = "sample_to_metric";
inline constexpr std::string_view kIndexToMetric = "index_to_metric";
inline constexpr std::string_view kIndexToSample = "index_to_sample";
inline constexpr std::string_view kIndexToSamplePercentile = "index_to_sample_percentile_merged";
inline constexpr std::string_view kMetricValue = "metric_value";

// S/M/M_<kind>: the .bin/.idx prefix of one metric file.
std::string MetricFilePrefix(const std::string& save_path, const std::string& metric,
                             std::string_view kind);

// True for names that tools skip when walking an output: dot-entries are
// temporary or hidden state, never results.
bool IsHiddenName(std::string_view name);

// A metric folder found in a save path, with which of its files exist (a
// kind counts as present when its .idx or its .bin exists).
struct MetricFolder {
  std::string name;
  bool has_single_value_files = false;  // any of the four single-value kinds
  bool has_metric_value = false;
};

// The metric folders of `save_path`, sorted by name. BadInput if save_path is
// not a directory; an empty list if it holds no metric folder.
Result<std::vector<MetricFolder>> FindMetricFolders(const std::string& save_path);

}  // namespace dsanalyze
