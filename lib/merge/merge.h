// `dsanalyze merge`: the analysis of the union of disjoint analyses of one
// dataset (merge_inputs.h), byte-identical in every metric file to one run
// over the union (merge_metric.h).
//
// One process, no MPI. The output is written like a run's (output/
// analysis_writer.h) and ends like one (output/finish_analysis.h): the
// save-path lock, a hidden staging folder, every metric folder and the
// reports staged there and committed in one step, so nothing under its final
// name is ever half-written and a failed merge leaves `out` as it was (a
// folder it created is removed again). `out` is checked first (output/
// output_paths.h): not an input nor inside one, nor inside any analysis; it
// may be an analysis the merge does not read, replaced whole. Every input file is
// opened and every accumulate sum checked before `out` is touched, except
// the rows of sample_to_metric: a thread checks those while the output is
// written (they are a pass over the inputs' largest files), and their error
// is the merge's. The reports (report/report.h) are rewritten from the merged
// files; summary.json's config is the inputs' (merge_inputs.h MergedConfig),
// its run fields describe the merge: ranks 1, threads 1, config_hash "",
// one timing "merge_analyses", and "merged_from", the input paths in position order.
// A signal (util/interrupt.h) is noticed per metric, per value of the index
// merge and per chunk of sample_to_metric, until the commit starts, as in a run.
// A score metric's summary entry keeps its "score" block (its meaning is the
// recorded params.scale; a score with bins is not mergeable, merge_inputs.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/progress.h"
#include "util/stage_clock.h"
#include "util/status.h"

namespace dsanalyze {

struct MergeResult {
  uint64_t metrics = 0;
  uint64_t samples = 0;  // the union's positions
  // For --timings: seconds per stage ("open", "M: merge" or "M: metric_value"
  // per metric, "report", "commit"; rank0 = slowest: one
  // process), and peak memory.
  std::vector<StageTime> stages;
  int64_t peak_rss_bytes = 0;
  int64_t peak_anon_bytes = 0;
};

// Errors: BadInput (one line starting "merge: ", or naming --out) for inputs
// that cannot be merged or an --out that is, or is inside, an input; IoError
// for files that cannot be written; Interrupted (util/interrupt.h: the caller
// installs the handlers) when SIGINT, SIGTERM or SIGHUP arrives before the
// commit, which then removes what it staged. `progress` shows the stages.
Result<MergeResult> MergeAnalyses(const std::vector<std::string>& inputs, const std::string& out,
                                  Progress& progress);

}  // namespace dsanalyze
