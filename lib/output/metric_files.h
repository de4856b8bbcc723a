// The one reader of a finished analysis's metric files. Every command that
// reads an analysis back (verify, compare, curriculum, order, batches, merge,
// the reports) opens its metric files here, or checks the files it opened its
// own way with the functions here, so each rule below is checked in one place
// and broken with one message.
//
// What it opens: S/M/M_<kind> (output/analysis_layout.h MetricFilePrefix),
// each a .bin/.idx pair opened with the analysis's recorded dtype-code table,
// or the one each file fits (output/analysis_files.h OpenMetricFile), after
// CheckWritten: a file the run chose not to write (output.files) is named as
// left out, not as missing.
//
// Ownership: a MetricFiles owns its files' read-only mappings; the
// ElementViews taken from them are valid while it lives. It is movable, not
// copyable; once opened nothing in it changes, so several threads may read it
// at once. Nothing here holds memory per sample or per value: values are read
// through the mappings (MetricFiles::value), and ReadIndexValues is the one
// call that copies them (O(distinct values)), for callers that keep them.
//
// The rules, each with its one message (the text after "PREFIX: "; a row
// is named "row R: "):
//  1. sample_to_metric and index_to_metric hold one value a row:
//       "row R: has K elements, expected exactly 1"
//  2. index_to_metric's values and metric_value's elements fit int64 (a
//     DeepSpeed analysis holds int64 values):
//       "row R: value V exceeds the int64 range"
//  3. index_to_metric is strictly ascending (one row per distinct value):
//       "row R: value V is not greater than the previous row's W (must be
//        strictly ascending)"
//  4. index_to_sample has one row per index_to_metric row (checked on
//     index_to_sample):
//       "has U rows but index_to_metric has V (one row per distinct value)"
//  5. index_to_sample holds one id a sample, a row of sample_to_metric (N):
//       "holds X sample ids but sample_to_metric has N samples"
//  6. metric_value holds exactly one row, and it is not empty: DeepSpeed's
//     reduce fits the row's dtype to max() and min() of the summed row, which
//     fail on an empty one, so no analysis holds an empty row:
//       "has R rows, expected exactly 1"
//       "row 0: is empty (DeepSpeed's reduce never writes an empty metric_value)"
// Everything else about the files (each id once, the files' agreement, the
// percentile grouping, the fitted dtypes) is check/verify.h's to tell; the
// file format itself is format/indexed_dataset.h's.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "format/indexed_dataset.h"
#include "util/status.h"

namespace dsanalyze {

struct AnalysisFolder;  // output/analysis_folder.h

enum class FileRule {
  kOneValueARow,
  kInt64,
  kAscending,
  kOneRowPerValue,
  kOneIdASample,
  kOneRow,
  kNonEmptyRow
};

// A broken rule, as verify lists it (check/verify.h Violation): its first
// offending row, if the rule is per row, and the rule's message.
struct FileProblem {
  FileRule rule;
  std::optional<uint64_t> row;
  std::string message;
};

// An element as int64 (rule 2): false for a uint64 above INT64_MAX, which is
// never a valid metric value or sample id (both are int64 in an analysis).
template <class T>
bool AsInt64(T v, int64_t* out) {
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  }
  *out = static_cast<int64_t>(v);
  return true;
}

// BadInput "PREFIX: row R: message" (or "PREFIX: message"), the one line every
// command but verify reports a broken rule with.
Status BadFile(const std::string& prefix, const FileProblem& problem);

// Rule 1 for `ds` (sample_to_metric or index_to_metric).
std::optional<FileProblem> CheckOneValueARow(const IndexedDataset& ds);

// Rules 1-3 for index_to_metric, reading it once. `values`, when given, gets
// every row's value unless rule 1 or 2 is broken (so also when only rule 3
// is).
std::optional<FileProblem> CheckIndexToMetric(const IndexedDataset& i2m,
                                              std::vector<int64_t>* values = nullptr);

// Rule 4.
std::optional<FileProblem> CheckOneRowPerValue(const IndexedDataset& i2s,
                                               const IndexedDataset& i2m);

// Rule 5, N = `samples`.
std::optional<FileProblem> CheckOneIdASample(const IndexedDataset& i2s, uint64_t samples);

// Rules 1-4 as BadFile, for an index_to_sample and index_to_metric opened
// by the caller (merge's inputs).
Status CheckIndexFiles(const IndexedDataset& i2s, const IndexedDataset& i2m);

// index_to_metric's values, one a row (rules 1-3 as BadFile).
Result<std::vector<int64_t>> ReadIndexValues(const IndexedDataset& i2m);

// Rules 6 and 2 for metric_value; `row`, when given, gets its elements once
// rule 6 holds (also when rule 2 is broken: then they are truncated).
std::optional<FileProblem> CheckMetricValue(const IndexedDataset& mv,
                                            std::vector<int64_t>* row = nullptr);
// The same as BadFile: the one row's elements.
Result<std::vector<int64_t>> ReadMetricValueRow(const IndexedDataset& mv);

// One single_value_per_sample metric's files, opened and checked.
struct MetricFiles {
  std::string name;
  IndexedDataset index_to_sample;  // U rows, a value's ids each
  IndexedDataset index_to_metric;  // U rows of one value, strictly ascending
  // sample_to_metric: its prefix, its rows (read from its header), and the
  // file itself when it was opened (rule 1 checked).
  std::string sample_to_metric_prefix;
  uint64_t sample_rows = 0;
  std::optional<IndexedDataset> sample_to_metric;

  uint64_t samples() const { return index_to_sample.num_elements(); }
  // The value of index_to_metric row `row` (< U).
  int64_t value(uint64_t row) const;
};

// How much of sample_to_metric OpenMetricFiles reads: its header only (its
// rows counted), or the whole file (opened; its .idx is 12 bytes a sample).
enum class SampleToMetric { kCount, kOpen };

// Opens `metric` of the analysis at `save_path` (read by ReadAnalysisFolder
// into `analysis`): index_to_sample, index_to_metric and sample_to_metric,
// the run having chosen all three. BadInput, one line naming the file: a file
// left out (CheckWritten), unreadable, or breaking rules 1-5 (sample_to_metric
// only counted: its rows are N, its rule 1 unchecked).
Result<MetricFiles> OpenMetricFiles(const std::string& save_path, const AnalysisFolder& analysis,
                                    const std::string& metric, SampleToMetric sample_to_metric);

}  // namespace dsanalyze
