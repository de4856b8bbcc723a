// The curriculum replay as a standalone SVG chart (880 x 520, the
// histograms' style), over training steps 1..T in two panels: above, each
// metric's difficulty normalized to its min..max (0 at min_difficulty, 1 at
// max_difficulty), with a legend giving each line's real range; below, the
// eligible pool in samples, on a log axis when its smallest value is under
// 1% of its largest (a pool of 0 or 1 against a batch of hundreds would
// otherwise lie flat on the axis), with the global batch size as a dashed
// line. The steps an error concerns are shaded across both panels, from
// the error's step to the replay's next step.
#pragma once

#include <string>

#include "curriculum/curriculum_check.h"

namespace dsanalyze {

std::string CurriculumSvg(const CurriculumReport& report);

}  // namespace dsanalyze
