// `dsanalyze batches` without its printing: resolves the parameters
// (batching/batch_params.h), opens the analysis and the filter ids
// (batching/batch_input.h), plans (batching/planner.h) while writing the
// arrays (batching/plan_files.h), copies epoch 1's batches into the later
// epochs (batching/epochs.h), then writes the chart and plan.json and
// moves the plan into place. Bad input fails before anything carries the
// --out name; an output that is or lies inside an input or an analysis
// (output/output_paths.h), before the analysis is read; --svg or --html
// inside --out, or equal to it, is bad input (the commit replaces --out as a
// whole), as is one file for both. While it writes, --out is locked
// (batching/plan_files.h). A signal caught before the chart and the commit
// (util/interrupt.h; checked after each batch) is Status::Interrupted, with
// nothing left at --out.
#pragma once

#include <string>

#include "batching/batch_params.h"
#include "util/status.h"

namespace dsanalyze {

// Returns the summary to print (batching/plan_report.h).
Result<std::string> WriteBatchPlan(const BatchesRequest& request);

}  // namespace dsanalyze
