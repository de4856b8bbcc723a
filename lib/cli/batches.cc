// `dsanalyze batches`: writes DeepSpeed's variable-batch-size plan
// (batching/batch_plan.h) and prints its summary; errors are one line, exit 2
// or 3.
#include <cstdio>
#include <string>

#include "batching/batch_plan.h"
#include "cli/command_output.h"
#include "cli/commands.h"

namespace dsanalyze::cli {

int Batches(const BatchesRequest& request) {
  Result<std::string> summary = WriteBatchPlan(request);
  if (!summary.ok()) return ReportFailure(summary.status());
  std::fputs(summary->c_str(), stdout);
  return kExitOk;
}

}  // namespace dsanalyze::cli
