// The page of `dsanalyze curriculum --html F` (page/html.h's style). First a
// summary: the verdict (by the worst severity found, with the counts and
// the share of samples ever eligible), every finding grouped by kind with
// its fix, errors first (and before them a schedule left at the placeholder
// total_curriculum_step, kPlaceholderCurriculumStep), the replay's setting
// and per metric one line. Then its chart (curriculum/curriculum_svg.h) and
// the table of the steps where a difficulty changes, folded.
// The run's page shows the proposal's findings the same way (CurriculumFindings).
#pragma once

#include <string>
#include <vector>

#include "curriculum/curriculum_check.h"
#include "page/html.h"

namespace dsanalyze {

std::vector<html::Finding> CurriculumFindings(const std::vector<CurriculumWarning>& warnings);

std::string CurriculumPageHtml(const CurriculumReport& report);

}  // namespace dsanalyze
