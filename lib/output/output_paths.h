// Where a command may write: never into an analysis.
//
// Every path a command writes to (curriculum --json/--svg/--html, compare
// --html, order --out, batches --out/--svg/--html, merge --out, generate's
// prefix) is checked here, before the command reads anything. It is refused
// when it
//  - is one of the paths the command reads (its inputs: the analyses, a
//    DeepSpeed config, a sample-ids file) or lies inside one, or
//  - is a folder holding a dsanalyze analysis or lies inside one: its
//    summary.json, a metric folder S/M/ and its files, anything below.
// Writing there would replace part of an analysis that verify, compare,
// merge, the curriculum tools and DeepSpeed read, and a command's output is
// never part of an analysis. Paths are compared by real path: ".." and
// symbolic links are resolved along the part of the path that exists (its
// nearest existing ancestor, as realpath(3) resolves it), so no spelling of a
// path reaches an analysis by another route. The one exception is an
// analysis's save path (merge --out): it may be an analysis the command does
// not read, which its commit replaces whole, as a run replaces its save path.
//
// A folder holds a dsanalyze analysis when its summary.json is a regular file
// holding a JSON object whose "tool" is "dsanalyze" (output/analysis_layout.h
// kSummaryTool: every run and merge writes it). Another tool's summary.json
// does not count; a DeepSpeed output (metric folders, no summary.json) is
// protected as an input only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

enum class OutputKind {
  kFileOrFolder,  // a file or a folder of the command's own (a page, an order, a plan)
  kSavePath,      // an analysis's save path (merge --out): may be an analysis not read
};

// BadInput, in one line naming `flag`, `path` and the input or the analysis
// it lies in, when the output `path` of a command that reads `inputs` (empty
// ones are skipped) breaks the rule above:
//   --html K/summary.json: is inside the input K, which this command reads
//   and never writes into; give another --html
// OK when `path` cannot be resolved (a symbolic-link loop, a folder that
// cannot be searched): writing there fails, naming the problem.
Status CheckOutsideAnalyses(std::string_view flag, const std::string& path,
                            const std::vector<std::string>& inputs,
                            OutputKind kind = OutputKind::kFileOrFolder);

// The check of an output file (--html, --json, --svg, order --out):
// CheckOutsideAnalyses, then util/file_util.h CheckOutputPath ("-", a folder,
// a missing folder).
Status CheckOutputFile(std::string_view flag, const std::string& path,
                       const std::vector<std::string>& inputs);

}  // namespace dsanalyze
