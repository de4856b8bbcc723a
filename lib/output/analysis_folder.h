// Reading a save path back as an analysis (the layout is
// output/analysis_layout.h): which folders are metric folders, what
// summary.json lists, which entries belong to the analysis. verify, compare
// and the run's commit all find metrics through these functions.
//
// A dsanalyze output holds S/summary.json, whose "metrics" object lists the
// metrics of that one analysis; a DeepSpeed output has metric folders only.
// The analysis of S is its summary.json list when there is one, else its
// metric folders. A run's commit replaces every entry that belongs to the
// previous analysis (AnalysisEntries), so S never mixes two analyses; verify
// and compare report a metric folder summary.json does not list.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/dtype.h"
#include "metrics/metric.h"
#include "output/analysis_layout.h"
#include "util/status.h"

namespace dsanalyze {

// A metric folder found in a save path, with which of its files exist (a
// kind counts as present when its .idx or its .bin exists).
struct MetricFolder {
  std::string name;
  // The metric types (analysis_layout.h kMetricTypes) any of whose kinds are
  // present, in the table's order: never empty, one type in a sound analysis.
  std::vector<MetricType> types;
};

// The metric folders of `save_path`, sorted by name. BadInput if save_path is
// not a directory; an empty list if it holds no metric folder.
Result<std::vector<MetricFolder>> FindMetricFolders(const std::string& save_path);

// A metric as summary.json lists it; type unset when its "type" is missing
// or unknown, samples unset unless it is a non-negative integer.
struct ListedMetric {
  std::string name;
  std::optional<MetricType> type;
  std::optional<uint64_t> samples;  // a single-value metric's N
  uint64_t nan_scores = 0;          // a score metric's score.nan.samples, else 0
};

// What verify and compare see of one save path.
struct AnalysisFolder {
  std::vector<MetricFolder> folders;  // by layout, sorted by name
  bool has_summary = false;           // S/summary.json exists: a dsanalyze output
  std::vector<ListedMetric> listed;   // summary.json's metrics, sorted by name
  // The outputs the run chose (summary.json's "files"; analysis_layout.h):
  // all of them without summary.json or without the key.
  std::vector<std::string> files = AllOutputFiles();
  // summary.json's "config": the run's config as recorded (null without one).
  nlohmann::json config;
  // summary.json's "dataset": what the config does not say about the dataset
  // (dataset/dataset.h DescribeJson; null without one).
  nlohmann::json dataset;
  // The dtype-code table of its files (analysis_files.h RecordedCodeTable):
  // unset without summary.json, each file's is then detected.
  std::optional<CodeTable> table;
};

// The file kinds of a metric of `type` (analysis_layout.h) that `analysis`
// chose not to write, in write order: verify and compare report them as
// skipped by choice, not missing.
std::vector<std::string_view> SkippedKinds(const AnalysisFolder& analysis, MetricType type);

// Reads `save_path` as an analysis folder. BadInput, in one line naming the
// path, when it is not a directory, when its summary.json cannot be read,
// lists no metric or has a "files" that is not a list of output names, or when it has neither
// summary.json nor a metric folder.
Result<AnalysisFolder> ReadAnalysisFolder(const std::string& save_path);

// The metric names of the analysis, sorted: summary.json's list when there
// is one, else the metric folders' names (a DeepSpeed output).
std::vector<std::string> AnalysisMetricNames(const AnalysisFolder& analysis);

// Where a folder disagrees with its summary.json, both sorted by name: metric
// folders summary.json does not list (left from another analysis) and listed
// metrics without a folder (but those none of whose files was chosen). Empty without summary.json
// (a DeepSpeed output, whose folders are the analysis). verify and compare word these each their
// way.
struct SummaryMismatch {
  std::vector<std::string> unlisted_folders;
  std::vector<ListedMetric> missing_folders;
};
SummaryMismatch CheckFoldersAgainstSummary(const AnalysisFolder& analysis);

// The entries of `save_path` that belong to the analysis it holds, sorted:
// its metric folders (those holding metric files, and the folders of the
// metrics its summary.json lists, even empty: output.files can leave a
// metric's folder empty), summary.json, curriculum_config.json, report.html
// and data_clusters/ (DeepSpeed's clusters are built from this analysis's
// index files, so they are stale once it is replaced). Never a hidden entry,
// never another folder without metric files, never any other name (a user's
// file). IoError when the folder cannot be listed.
Result<std::vector<std::string>> AnalysisEntries(const std::string& save_path);

}  // namespace dsanalyze
