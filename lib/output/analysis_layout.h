// The output spec: what a finished analysis holds, and the rules its files
// follow (docs/format.md §2). The writer (pipeline/), the reports (report/),
// verify and compare (check/) all take file names, dtypes and the percentile
// grouping from here, so each rule is written once.
//
// A save path S holds one folder per metric M. A single_value_per_sample
// metric has four .bin/.idx pairs, S/M/M_<kind> for the four kinds below; an
// accumulate_value_over_samples metric has one, S/M/M_metric_value. Beside
// them: S/M/M_histogram.svg per single-value metric, S/summary.json (the
// analysis's metric list and statistics), S/curriculum_config.json and
// S/report.html. Reading
// a save path back (which folders are metrics, which entries belong to the
// analysis) is output/analysis_folder.h.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "format/dtype.h"
#include "metrics/metric.h"

namespace dsanalyze {

// The kinds of metric file, each a .bin/.idx pair S/M/M_<kind>.
inline constexpr std::string_view kSampleToMetric = "sample_to_metric";
inline constexpr std::string_view kIndexToMetric = "index_to_metric";
inline constexpr std::string_view kIndexToSample = "index_to_sample";
inline constexpr std::string_view kIndexToSamplePercentile = "index_to_sample_percentile_merged";
inline constexpr std::string_view kMetricValue = "metric_value";
// The files of each metric type, in the order they are written.
inline constexpr std::array<std::string_view, 4> kSingleValueKinds = {
    kSampleToMetric, kIndexToMetric, kIndexToSample, kIndexToSamplePercentile};
inline constexpr std::array<std::string_view, 1> kAccumulateKinds = {kMetricValue};
// The reports of a single-value metric need its index_to_metric and
// index_to_sample (its distribution, report/metric_stats.h); its entry in
// curriculum_config.json needs index_to_sample_percentile_merged too.
inline constexpr std::array<std::string_view, 2> kDistributionKinds = {kIndexToMetric,
                                                                       kIndexToSample};
inline constexpr std::array<std::string_view, 3> kCurriculumEntryKinds = {
    kIndexToMetric, kIndexToSample, kIndexToSamplePercentile};

// What each metric type (metrics/metric.h) is to an analysis. The writer
// (pipeline/), the reports, verify, compare, merge and the curriculum tools
// ask this table rather than branch on the type itself. A new type adds its
// entry here and its job (pipeline/metric_jobs.cc); one whose values are
// neither per sample nor one summed vector also needs its own statistics,
// checks and merge (docs/architecture.md).
struct MetricTypeTraits {
  MetricType type;
  // One value per sample: the values are sorted and indexed (index_to_*), so
  // the metric has N samples (summary.json "samples"), a distribution, a
  // histogram, and can order a curriculum. Else one vector, summed over the
  // samples.
  bool per_sample;
  std::span<const std::string_view> kinds;  // its files, in the order they are written
  // The files its summary.json statistics are read from: with any of them
  // left out (output.files) it has none.
  std::span<const std::string_view> statistics_kinds;
};
// One entry per type, at the type's index (checked below).
inline constexpr std::array<MetricTypeTraits, kMetricTypeCount> kMetricTypes = {{
    {.type = MetricType::kSingleValuePerSample,
     .per_sample = true,
     .kinds = kSingleValueKinds,
     .statistics_kinds = kDistributionKinds},
    {.type = MetricType::kAccumulateValueOverSamples,
     .per_sample = false,
     .kinds = kAccumulateKinds,
     .statistics_kinds = kAccumulateKinds},
}};
constexpr const MetricTypeTraits& TraitsOf(MetricType type) {
  return kMetricTypes[static_cast<size_t>(type)];
}
static_assert(std::all_of(kMetricTypes.begin(), kMetricTypes.end(),
                          [](const MetricTypeTraits& t) { return &TraitsOf(t.type) == &t; }),
              "kMetricTypes: each type's entry at its index");
// The type whose MetricTypeName (summary.json's "type") is `name`, if any.
std::optional<MetricType> MetricTypeNamed(std::string_view name);

// The chosen outputs (config output.files, config/config.h
// kOutputFileChoices): a run writes, and verify and compare expect, only the
// metric files whose kind is chosen. Each kind is chosen by its own name but
// index_to_sample_percentile_merged, chosen as "percentile_merged".
// "reports" is summary.json, curriculum_config.json, report.html and the
// histograms, and is always chosen. summary.json's top-level "files" lists the choice when it is
// not all of them; without that key (every earlier analysis) all were chosen.
std::string_view OutputChoiceOf(std::string_view kind);
bool WritesKind(const std::vector<std::string>& files, std::string_view kind);
// True when any file of a metric of `type` is chosen: else the run does not
// map the metric at all.
bool WritesAnyKindOf(const std::vector<std::string>& files, MetricType type);
// True when every file the statistics of a metric of `type` are read from is
// chosen: else its summary.json entry has a note instead of statistics.
bool WritesStatisticsOf(const std::vector<std::string>& files, MetricType type);
inline constexpr std::string_view kSummaryFilesKey = "files";
bool WritesDistribution(const std::vector<std::string>& files);
bool WritesCurriculumEntry(const std::vector<std::string>& files);

// S/M/M_<kind>: the .bin/.idx prefix of one metric file.
std::string MetricFilePrefix(const std::string& save_path, const std::string& metric,
                             std::string_view kind);

// The reports: S/M/M_histogram.svg per single-value metric, and the top-level
// files. A run writes curriculum_config.json (when it has one) before
// summary.json, and commits them in that order: summary.json comes last.
std::string HistogramFile(const std::string& save_path, const std::string& metric);
inline constexpr std::string_view kSummaryFile = "summary.json";
// summary.json's "tool": "dsanalyze", which every run and merge writes: what
// tells a dsanalyze analysis from another tool's folder (output/output_paths.h).
inline constexpr std::string_view kSummaryToolKey = "tool";
inline constexpr std::string_view kSummaryTool = "dsanalyze";
inline constexpr std::string_view kCurriculumConfigFile = "curriculum_config.json";
// The analysis as one page to look at (report/run_page.h), written and
// committed with summary.json; part of "reports" like the histograms.
inline constexpr std::string_view kReportHtmlFile = "report.html";
// Where DeepSpeed writes the clusters it builds from the index files during
// training (curriculum_config.json points it there): part of the analysis.
inline constexpr std::string_view kDataClustersDir = "data_clusters";

// True for names that tools skip when walking an output: dot-entries are
// temporary or hidden state, never results.
bool IsHiddenName(std::string_view name);

// The fitted dtypes: the smallest integer dtype of the code table that holds
// the values (format/dtype.h FitIntDType).
//  - sample_to_metric and index_to_metric: the metric's global min..max;
//  - index_to_sample and its percentile-merged copy: the sample ids and the
//    iteration positions, min(0, smallest id) .. max(N - 1, largest id);
//  - metric_value: the row's own min..max. The row is never empty: DeepSpeed's
//    reduce takes max() and min() of it, which fail on an empty row
//    (output/metric_files.h rule 6), so MetricValueDType requires one element.
struct IdSpan {
  int64_t lo = 0;
  int64_t hi = 0;
};
IdSpan SampleIdSpan(uint64_t samples, int64_t min_id, int64_t max_id);
inline DType SampleIdDType(uint64_t samples, int64_t min_id, int64_t max_id) {
  const IdSpan s = SampleIdSpan(samples, min_id, max_id);
  return FitIntDType(s.lo, s.hi);
}
DType MetricValueDType(std::span<const int64_t> row);

// The percentile-merged grouping for U distinct values: consecutive
// index_to_sample rows in groups of PercentileStep(U) = max(1, U / 100), so
// PercentileRows(U) = ceil(U / step) rows, the last one possibly short.
inline uint64_t PercentileStep(uint64_t distinct) {
  return distinct / 100 > 1 ? distinct / 100 : 1;
}
inline uint64_t PercentileRows(uint64_t distinct) {
  const uint64_t step = PercentileStep(distinct);
  return (distinct + step - 1) / step;
}

}  // namespace dsanalyze
