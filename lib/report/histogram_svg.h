// A histogram of a single-value metric as a standalone SVG document.
//
// A range of up to 60 integers gets one bar per integer; a wider range is
// split into 32..80 bins of a round width (1, 2 or 5 × 10^k). The chart has a title
// with the metric name and N, a y axis of sample counts and an x axis of
// metric values (both with round ticks and labels), and dashed vertical marks
// labelled with the 10th, 50th and 90th nearest-rank percentiles. The output
// is well-formed XML with the SVG namespace, so browsers open it directly.
#pragma once

#include <functional>
#include <string>

#include "report/metric_stats.h"

namespace dsanalyze {

// How the x axis names values: its title, a value's label and a bin width's
// label. A score metric's axis names the scores its integers stand for.
// `mark`, when set, writes the text of the percentile mark for percentile p
// at value v; unset, it is "p<p> = <label(v)>".
struct ValueAxis {
  std::string title;
  std::function<std::string(__int128)> label;
  std::function<std::string(__int128)> width;
  std::function<std::string(int p, __int128 v)> mark = nullptr;
  std::string counted = "samples";  // what the y axis counts
};
// The integers themselves, titled "<metric> value".
ValueAxis IntegerAxis(const std::string& metric);

std::string HistogramSvg(const std::string& metric, const ValueDistribution& d,
                         const ValueAxis& axis);

// Two distributions of one metric on one axis (`dsanalyze compare --html`):
// bins over both ranges, `a` as bars and `b` as a dashed outline, a legend
// naming them, no percentile marks.
std::string OverlaySvg(const std::string& metric, const ValueDistribution& a,
                       const ValueDistribution& b, const ValueAxis& axis,
                       const std::string& label_a, const std::string& label_b);

}  // namespace dsanalyze
