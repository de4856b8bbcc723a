// The page of `dsanalyze batches --html F` (page/html.h's style). First a
// summary: the verdict (batches planned from what share of the samples),
// every warning with its fix, and one line per distribution (batch size,
// tokens per micro-batch with its exact p10/p50/p90, padding efficiency,
// LR scale). Then the batch-size and tokens-per-micro-batch charts
// (plan_report.h), batch size and LR over the training steps, each parameter
// with its value and where it came from in one row, and the counts.
// Its numbers are plan.json's (PlanJson), written for people
// (page/numbers.h): plan.json keeps the machine-readable values.
#pragma once

#include <string>

#include "batching/plan_report.h"

namespace dsanalyze {

std::string PlanPageHtml(const PlanReport& report, const std::string& out);

}  // namespace dsanalyze
