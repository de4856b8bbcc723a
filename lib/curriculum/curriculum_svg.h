// The curriculum replay as a standalone SVG chart (880 x 520, the
// histograms' style): over training steps 1..T, each metric's difficulty
// normalized to its min..max (0 at min_difficulty, 1 at max_difficulty) and
// the eligible pool as a share of the analysis's N, all as step lines on one
// 0..100% axis, with a legend giving each line's real range.
#pragma once

#include <string>

#include "curriculum/curriculum_check.h"

namespace dsanalyze {

std::string CurriculumSvg(const CurriculumReport& report);

}  // namespace dsanalyze
