// FinishAnalysis: how every analysis ends, a run's (pipeline/pipeline.h) and
// a merge's (merge/merge.h), once its metric files and reports are staged
// (analysis_writer.h). In order:
//  1. the last checkpoint: the reports' Status, agreed on by a run's ranks
//     (comm/comm.h AgreeOnStatus), a signal caught so far (util/interrupt.h)
//     making it Interrupted; a failed one is returned at once, and the
//     staged analysis is left to its owner to remove;
//  2. DisarmInterrupts(): past the checkpoint the commit always completes;
//  3. the commit (AnalysisWriter::Commit, on a run's rank 0), its Status
//     agreed on; timed and shown in a stage of its own (then ended), or in
//     the stage under way;
//  4. a signal caught during the commit, on any rank, is warned of
//     (util/interrupt.h CommittedDespite): a run's rank 0 logs it (spdlog),
//     one process prints "dsanalyze: warning: MESSAGE" on stderr, after
//     clearing the progress line;
//  5. the stage under way, if any, ends on the clock and the progress line
//     (util/stage_clock.h, util/progress.h).
#pragma once

#include "output/analysis_writer.h"
#include "util/progress.h"
#include "util/stage_clock.h"
#include "util/status.h"

namespace dsanalyze {

class Comm;

struct AnalysisEnding {
  // A run's ranks, every one of which calls FinishAnalysis; null: one
  // process without MPI.
  const Comm* comm = nullptr;
  AnalysisWriter* staged = nullptr;  // null on a run's other ranks
  StageClock* clock = nullptr;
  Progress* progress = nullptr;
  // The stage of its own the commit is timed and shown in (merge's
  // "commit"); null: the commit goes on in the stage under way (a run's
  // report_commit times its reports and the commit as one).
  const char* commit_stage = nullptr;
};

// Ends the analysis staged in `ending.staged` (1-5 above), `reports` the
// Status of writing its reports; collective when `ending.comm` is set.
// Returns the agreed Status: OK (committed), the reports' error,
// Interrupted, or the commit's error.
Status FinishAnalysis(const Status& reports, const AnalysisEnding& ending);

}  // namespace dsanalyze
