// The page of `dsanalyze curriculum --html F` (page/html.h's style): the replay's
// setting, its chart (curriculum/curriculum_svg.h), the table of the steps
// where a difficulty changes, and the findings grouped by kind, errors first.
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
