// The page of `dsanalyze compare A B --html F` (page/html.h's style), the
// one a CI job attaches when compare fails: the verdict and every file that
// differs (check/compare.h), then per single-value metric of both analyses
// its two distributions overlaid on one axis (page/histogram_svg.h
// OverlaySvg) and the nearest-rank percentiles p0 ... p100 that moved, with
// A's value, B's and the change.
// A metric whose distribution cannot be read on a side gets a line saying why
// instead of its chart; the page is still written.
#pragma once

#include <string>

#include "check/compare.h"

namespace dsanalyze {

std::string ComparePageHtml(const std::string& a, const std::string& b,
                            const CompareReport& report);

}  // namespace dsanalyze
