// Compares two analysis outputs file by file, by content.
//
// Every .bin/.idx pair under either directory (found recursively, named by its
// prefix relative to the directory; dot-entries skipped) is opened on both
// sides with the deepspeed dtype table (integer dtypes only, as the analysis
// writes) and compared by dtype, row count, row
// sizes and element values — not by raw bytes, so two outputs that differ only
// in doc_idx (DeepSpeed's DataAnalyzer vs DistributedDataAnalyzer) can count
// as equal. Files that are not .bin/.idx pairs (summary.json, SVGs, timings)
// are ignored. Memory is O(1) per file beyond the mappings. Thread-compatible.
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
  bool same() const { return different.empty(); }
};

// Compares every pair under `a` and `b`. BadInput when either is not a
// directory or neither holds any .bin/.idx pair; unreadable or corrupt files
// are differences.
Result<CompareReport> CompareOutputs(const std::string& a, const std::string& b, bool strict);

}  // namespace dsanalyze
