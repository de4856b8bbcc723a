#include "metrics/score_file.h"

#include "config/memory_budget.h"
#include "format/jsonl_scores.h"

namespace dsanalyze {
namespace {

Status CheckRows(const ScoreFileOptions& o, uint64_t rows, const std::string& shape) {
  if (rows == o.rows) return Status::OK();
  return Status::BadInput(o.path + ": has " + shape + " rows, but the dataset has " +
                          std::to_string(o.rows) + " " + o.rows_are +
                          " (one score per row is required)");
}

}  // namespace

Result<ScoreColumn> ScoreColumn::Open(const ScoreFileOptions& o) {
  ScoreColumn c;
  c.path_ = o.path;
  if (o.path.ends_with(".npy")) {
    DSA_ASSIGN_OR_RETURN(c.npy_, NpyArray::Open(o.path, NpyElements::kNumbers));
    if (c.npy_.shape().size() != 1)
      return Status::BadInput(o.path + ": shape " + c.npy_.shape_string() +
                              " is not 1-D (one score per row is required)");
    DSA_RETURN_IF_ERROR(CheckRows(o, c.npy_.size(), std::to_string(c.npy_.size())));
    c.from_npy_ = true;
    return c;
  }
  if (o.path.ends_with(".jsonl")) {
    // A score per row, and with an id field the line that gave it.
    const uint64_t bytes_per_row = o.id_field.empty() ? 8 : 16;
    DSA_RETURN_IF_ERROR(
        CheckMemoryNeed({.key = o.path,
                         .what = "the scores of " + std::to_string(o.rows) + " " + o.rows_are +
                                 " at " + std::to_string(bytes_per_row) + " bytes each",
                         .bytes = SaturatingProduct(o.rows, bytes_per_row)}));
    DSA_ASSIGN_OR_RETURN(c.values_, ReadJsonlScores(o.path, {o.field, o.id_field, o.rows},
                                                    {o.field_note, o.id_field_note}));
    return c;
  }
  return Status::BadInput(o.path + ": unknown score file type (expected a .npy or .jsonl file)");
}

}  // namespace dsanalyze
