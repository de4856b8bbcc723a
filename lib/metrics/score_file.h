// A score file: one number per row (document or sample), read by the score
// metric. Either a 1-D .npy array of any little-endian integer or float32 /
// float64 dtype, mapped and read in place, or a JSON-lines file
// (format/jsonl_scores.h), parsed once into memory.
//
// Open checks the row count against the dataset; values themselves (NaN,
// infinities) are the metric's to judge. Immutable after Open; at() is safe
// from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/npy.h"
#include "util/status.h"

namespace dsanalyze {

struct ScoreFileOptions {
  std::string path;
  std::string field;     // JSON lines only: the value's key
  std::string id_field;  // JSON lines only: the row id's key; empty: line order
  // JSON lines only, for errors about a line's keys (JsonlScoreOptions).
  std::string field_note;
  std::string id_field_note;
  uint64_t rows = 0;     // rows the file must have
  std::string rows_are;  // what a row is, for messages: "documents" or "samples"
};

class ScoreColumn {
 public:
  // BadInput naming the path: not found, not .npy or .jsonl, not 1-D, wrong
  // dtype, or a row count other than options.rows.
  static Result<ScoreColumn> Open(const ScoreFileOptions& options);

  const std::string& path() const { return path_; }
  uint64_t size() const { return from_npy_ ? npy_.size() : values_.size(); }
  double at(uint64_t row) const { return from_npy_ ? npy_.AtDouble(row) : values_[row]; }

 private:
  std::string path_;
  bool from_npy_ = false;
  NpyArray npy_;
  std::vector<double> values_;
};

}  // namespace dsanalyze
