// Checks a finished analysis output against every invariant of
// docs/format.md §2 (docs/verify-compare.md lists them).
//
// When the save path has a summary.json (a dsanalyze output), its metric
// folders must be exactly the metrics it lists: a folder it does not list
// (left over from another analysis) and a listed metric without a folder are
// violations of that metric. A DeepSpeed output has no summary.json; its
// metric folders are the analysis.
//
// For each metric folder of the save path, every file must open as a valid
// .bin/.idx pair (read with the dtype-code table summary.json records, or
// the one each file fits: output/analysis_files.h) and:
//  - sample_to_metric and index_to_metric have exactly one element per row;
//    index_to_metric is strictly ascending;
//  - index_to_sample has one non-empty, ascending row per index_to_metric row,
//    and its rows together hold each sample id exactly once, N ids in all
//    (N = rows of sample_to_metric);
//  - sample_to_metric agrees with the index: with the default ids 0..N-1,
//    row i holds the value of the index row that contains id i; with other ids
//    (sample_indices), each value occurs as often as its index row has ids;
//  - index_to_sample_percentile_merged groups index_to_sample rows by
//    step = max(1, U / 100) (same elements, ceil(U / step) rows);
//  - dtypes are DeepSpeed's fitted ones (metric dtype from the value range,
//    sample dtype from min(0, min id) .. max(N-1, max id));
//  - metric_value has exactly one, non-empty row of its fitted dtype.
// Only the files the run chose (summary.json "files"; all without it) are
// read; an invariant between two files is checked when both were chosen
// (without sample_to_metric, the sample dtype is checked against the N that
// summary.json lists). A
// listed metric none of whose files was chosen needs no folder.
// The invariants every command needs are output/metric_files.h's rules, with
// that reader's messages. Each broken invariant is reported once, at its
// first offending row. doc_idx is not checked: DeepSpeed's readers ignore it
// and its two analyzers differ.
//
// The data is read once through the mappings with typed loops; memory is
// O(distinct values) plus, to find duplicate ids, a bitmap of max id bits (or
// a sorted copy of the ids when ids are sparse). Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/metric.h"
#include "util/status.h"

namespace dsanalyze {

struct Violation {
  std::string metric;
  std::string file;             // "M/M_index_to_metric" (without .bin/.idx), or "M" for the folder
  std::optional<uint64_t> row;  // first offending row, for per-row invariants
  std::string message;
};

// "metric: file: row R: message" (one line).
std::string FormatViolation(const Violation& v);

// What verify saw of one metric; a count is unset when its file is unreadable.
struct VerifiedMetric {
  std::string name;
  MetricType type = MetricType::kSingleValuePerSample;
  // Single-value: rows of sample_to_metric and of index_to_metric. When the
  // run chose not to write one (output.files): N as summary.json lists it,
  // else the ids in index_to_sample; index_to_sample's rows.
  std::optional<uint64_t> samples;
  std::optional<uint64_t> distinct_values;
  std::optional<uint64_t> length;           // accumulate: elements of the metric_value row
  // Files the run chose not to write (summary.json "files", output.files):
  // "M/M_sample_to_metric", ... Skipped by choice, not missing: no violation.
  std::vector<std::string> skipped;
};

struct VerifyReport {
  std::vector<VerifiedMetric> metrics;
  std::vector<Violation> violations;
  bool ok() const { return violations.empty(); }
};

// Checks every metric folder of `save_path` against the format and its
// summary.json. Broken or unreadable metric files are violations in the
// report; BadInput when save_path is not an analysis folder
// (analysis_layout.h ReadAnalysisFolder: not a directory, summary.json
// unreadable, or neither summary.json nor a metric folder).
Result<VerifyReport> VerifyOutput(const std::string& save_path);

}  // namespace dsanalyze
