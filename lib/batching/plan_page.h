// The page of `dsanalyze batches --html F` (page/html.h's style): the
// parameters and where each came from, the counts, the padding efficiency,
// the batch-size and tokens-per-micro-batch distributions (plan_report.h's
// charts), batch size and LR over the training steps with the LR-scale lint,
// and what was left out and why (the other warnings, each with its fix).
// Its numbers are plan.json's (PlanJson).
#pragma once

#include <string>

#include "batching/plan_report.h"

namespace dsanalyze {

std::string PlanPageHtml(const PlanReport& report, const std::string& out);

}  // namespace dsanalyze
