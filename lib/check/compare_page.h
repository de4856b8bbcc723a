// The page of `dsanalyze compare A B --html F` (page/html.h's style), the
// one a CI job attaches when compare fails. First a summary: a plain
// sentence when A and B are analyses of different datasets (different
// recorded datasets or samples), the verdict in counts of files, and per
// single-value metric of both analyses how its distribution shifted: samples,
// mean, median, p10 and p90, each "A → B (+x%)". Then per metric its two
// distributions overlaid on one axis (page/histogram_svg.h OverlaySvg) and
// the nearest-rank percentiles p0 ... p100 that moved, with the change and
// the shift in percent; last, every file that is not equal, folded.
// A metric whose distribution cannot be read on a side gets a line saying why
// instead of its chart; the page is still written.
#pragma once

#include <string>

#include "check/compare.h"

namespace dsanalyze {

std::string ComparePageHtml(const std::string& a, const std::string& b,
                            const CompareReport& report);

}  // namespace dsanalyze
