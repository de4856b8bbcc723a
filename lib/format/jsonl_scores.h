// Reading one score per row from a JSON-lines file (one JSON object a line),
// the per-document or per-sample inputs of the `score` metric.
//
// Every line is validated as a whole JSON text, not only the fields read. The
// file is memory-mapped (util/file_util.h) and parsed with simdjson, a chunk of
// lines at a time (docs/benchmarks.md, case J).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

struct JsonlScoreOptions {
  std::string field;     // key of the score value in each line's object
  std::string id_field;  // empty: row = line order; else key of an integer row id in [0, rows)
  uint64_t rows = 0;     // how many rows the caller needs (documents or samples)
};

// Where the caller's keys were chosen (a config key path), added in
// parentheses to the errors about that key of a line; empty: nothing added.
struct JsonlKeyNotes {
  std::string field;
  std::string id_field;
};

// Reads one double per row from a JSON-lines file: one JSON object per line.
// Errors (Status BadInput, one line, naming the file and the 1-based line):
// "q.jsonl: line 7: field \"score\" is missing (NOTE)", "...: not a number
// (NOTE)" (NOTE from `notes`, when given), invalid JSON, fewer/more lines than
// rows (line-order mode), an id that is missing, not an integer, outside
// [0, rows) ("row past the end"), or repeated (name both lines), ids that
// leave a row without a score (name the first missing row).
//
// Values: any JSON number (integer or float) as the nearest double, and the
// bare tokens Python's json module writes for non-finite floats, NaN, Infinity
// and -Infinity, anywhere in a line (as a score they give NaN / ±inf; the
// caller decides whether those are errors). Lines may end in \n or \r\n; the
// last line may lack its newline; a blank line (empty or only whitespace) is
// an error, except the empty "line" after the final newline. A missing file
// gives "q.jsonl: file not found".
Result<std::vector<double>> ReadJsonlScores(const std::string& path,
                                            const JsonlScoreOptions& options,
                                            const JsonlKeyNotes& notes = {});

}  // namespace dsanalyze
