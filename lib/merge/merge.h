// `dsanalyze merge`: the analysis of the union of disjoint analyses of one
// dataset (merge_inputs.h), byte-identical in every metric file to one run
// over the union (merge_metric.h).
//
// One process, no MPI. The output is written like a run's (output/
// output_commit.h): the save-path lock, a hidden staging folder, every metric
// folder and the reports staged there and committed in one step, so nothing
// under its final name is ever half-written and a failed merge leaves `out`
// as it was (a folder it created is removed again). Every input file is
// opened and every accumulate sum checked before `out` is touched, except
// the rows of sample_to_metric: a thread checks those while the output is
// written (they are a pass over the inputs' largest files), and their error
// is the merge's. The reports (report/report.h) are rewritten from the merged
// files; summary.json's config is the inputs' (merge_inputs.h MergedConfig),
// its run fields describe the merge: ranks 1, threads 1, config_hash "",
// one timing "merge_analyses", and "merged_from", the input paths in position order.
// A score metric's summary entry has no "score" block (the score meaning is
// not recorded in summary.json).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/status.h"

namespace dsanalyze {

struct MergeResult {
  uint64_t metrics = 0;
  uint64_t samples = 0;  // the union's positions
};

// Errors: BadInput (one line starting "merge: ") for inputs that cannot be
// merged; IoError for files that cannot be written.
Result<MergeResult> MergeAnalyses(const std::vector<std::string>& inputs, const std::string& out);

}  // namespace dsanalyze
