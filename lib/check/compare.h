// Compares two analysis outputs: their metric lists, then file by file, by
// content.
//
// Both sides must be analysis folders (analysis_layout.h ReadAnalysisFolder):
// a dsanalyze output with its summary.json, or a DeepSpeed output with metric
// folders. Its metrics are summary.json's list when there is one, else its
// metric folders. These are differences named by the metric, so a folder
// left over from another analysis cannot make two analyses compare equal:
//  - a metric folder a side's summary.json does not list, or a listed metric
//    without a folder;
//  - a metric one side's analysis has and the other's lacks.
//
// For each metric of both analyses, every .bin/.idx pair under its folder on
// either side (found recursively, named by its prefix relative to the
// directory; dot-entries skipped) is opened on both sides with the deepspeed
// dtype table (integer dtypes only, as the analysis writes) and compared by
// dtype, row count, row sizes and element values — not by raw bytes, so two
// outputs that differ only in doc_idx (DeepSpeed's DataAnalyzer vs
// DistributedDataAnalyzer) can count as equal. Apart from summary.json's
// metric list, files that are not .bin/.idx pairs (the rest of summary.json,
// SVGs) are ignored, and so is data_clusters/. A pair only one side has
// is a difference unless the other side's summary.json records that it chose
// not to write that kind of file (skipped_by_choice, which also lists the
// files of a common metric that neither side chose to write). When the two analyses
// cover different samples (their recorded sample ranges, CompareReport::
// samples_differ), their files are compared all the same. Memory is O(1) per file beyond
// the mappings. Thread-compatible.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

struct FileDifference {
  std::string prefix;           // relative, without .bin/.idx
  std::optional<uint64_t> row;  // first differing row, when rows differ
  std::string message;
};

struct CompareReport {
  std::vector<std::string> equal;  // prefixes equal in content and doc_idx
  // Without `strict`: prefixes whose content is equal but whose doc_idx
  // differs (row is unset, message shows both doc_idx arrays). With `strict`
  // these are in `different` instead.
  std::vector<FileDifference> equal_except_doc_idx;
  std::vector<FileDifference> different;
  // Pairs one side has and the other chose not to write (output.files, as
  // its summary.json records): not differences, so a partial analysis
  // compares equal to the full one when every file both have is equal.
  std::vector<FileDifference> skipped_by_choice;
  // Set when both sides' summary.json say which samples they analysed (a
  // dataset.sample_range, or all N samples) and these differ, as in a part
  // compared with the whole run: one line saying so, for before the files.
  std::optional<std::string> samples_differ;
  bool same() const { return different.empty(); }
};

// Compares the analyses in `a` and `b`. BadInput when either is not an
// analysis folder (not a directory, summary.json unreadable, or neither
// summary.json nor a metric folder); unreadable or corrupt files are
// differences.
Result<CompareReport> CompareOutputs(const std::string& a, const std::string& b, bool strict);

}  // namespace dsanalyze
