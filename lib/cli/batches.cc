// `dsanalyze batches`: writes DeepSpeed's variable-batch-size plan
// (batching/batch_plan.h) and prints its summary (with -q nothing but
// errors); errors are one line, exit 2 or 3.
#include <cstdio>
#include <string>

#include "batching/batch_plan.h"
#include "cli/command_output.h"
#include "cli/commands.h"
#include "util/interrupt.h"

namespace dsanalyze::cli {

int Batches(const BatchesRequest& request) {
  InstallInterruptHandlers();
  Result<std::string> summary = WriteBatchPlan(request);
  if (!summary.ok()) return ReportFailure(summary.status());
  if (request.quiet) return kExitOk;
  if (CaughtSignal() != 0)  // after the last checkpoint: the output was committed
    std::fprintf(stderr, "dsanalyze: warning: %s\n", CommittedDespite(CaughtSignal()).c_str());
  std::fputs(summary->c_str(), stdout);
  return kExitOk;
}

}  // namespace dsanalyze::cli
