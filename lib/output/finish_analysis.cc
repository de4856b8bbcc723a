#include "output/finish_analysis.h"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "comm/comm.h"
#include "util/interrupt.h"

namespace dsanalyze {
namespace {

// A checkpoint (util/interrupt.h): the Status every rank agrees on.
Status Agree(const AnalysisEnding& ending, const Status& st) {
  if (ending.comm) return ending.comm->AgreeOnStatus(st);
  return st.ok() ? CheckInterrupt() : st;
}

// The signal caught during the commit on some rank (the largest), or 0.
int CaughtOnAnyRank(const AnalysisEnding& ending) {
  return ending.comm ? ending.comm->Allreduce(CaughtSignal(), MPI_MAX) : CaughtSignal();
}

// Ends the stage under way on the clock and the progress line.
void EndStage(const AnalysisEnding& ending) {
  ending.clock->End();
  ending.progress->End();
}

void WarnCommittedDespite(const AnalysisEnding& ending, int signal) {
  if (ending.comm) {
    if (ending.comm->is_root()) spdlog::warn("{}", CommittedDespite(signal));
    return;
  }
  ending.progress->ClearLine();
  std::fprintf(stderr, "dsanalyze: warning: %s\n", CommittedDespite(signal).c_str());
}

}  // namespace

Status FinishAnalysis(const Status& reports, const AnalysisEnding& ending) {
  DSA_RETURN_IF_ERROR(Agree(ending, reports));  // the last checkpoint
  DisarmInterrupts();
  if (ending.commit_stage) {
    ending.clock->Begin(ending.commit_stage);
    ending.progress->Begin(ending.commit_stage);
  }
  DSA_RETURN_IF_ERROR(Agree(ending, ending.staged ? ending.staged->Commit() : Status::OK()));
  if (ending.commit_stage) EndStage(ending);
  if (const int late = CaughtOnAnyRank(ending); late != 0) WarnCommittedDespite(ending, late);
  if (!ending.commit_stage) EndStage(ending);
  return Status::OK();
}

}  // namespace dsanalyze
