// A histogram of counted integers (a single-value metric's values, a batch
// plan's sizes) as a standalone SVG document.
//
// A range of up to 60 integers gets one bar per integer; a wider range is
// split into 32..80 bins of a round width (1, 2 or 5 × 10^k), the first from the
// smallest value. Values that span orders of magnitude (all ≥ 1, the largest
// ≥ 1000 × the smallest and p90 ≥ 30 × p10; or, when the axis asks for it,
// the largest ≥ 10 × the smallest) get a log x axis instead: bins of
// equal ratio (about 10 a decade, from the smallest value) and a tick at each
// power of ten. The chart has a title
// with the name and N, a y axis of counts (ValueAxis::counted: samples unless
// told) and an x axis of values (both with round ticks and labels), and dashed
// vertical marks labelled with the 10th, 50th and 90th nearest-rank
// percentiles. The output is well-formed XML with the SVG namespace, so
// browsers open it directly.
// The charts know only plain numbers; the caller's axis names what they are.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dsanalyze {

// Distinct integer values and how many samples have each: what a histogram draws.
struct CountedValues {
  std::vector<int64_t> values;   // distinct values, ascending
  std::vector<uint64_t> counts;  // samples with values[i]
  uint64_t samples = 0;          // sum of counts
};

// The nearest-rank p-th percentile (p in 0..100) of the per-sample values:
// the value of the ceil(p/100 · N)-th smallest sample, counting from 1 and
// taking the 1st for p = 0 — so it is always a value some sample has.
// Requires d.samples > 0.
int64_t NearestRankPercentile(const CountedValues& d, int p);

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
  // A log x axis as soon as the values (all ≥ 1) span a decade, the largest
  // ≥ 10 × the smallest, for values read by ratio (batch sizes: 8..366 on a
  // linear axis crowd into a bar or two); else only by the rule above.
  bool log_from_a_decade = false;
};
// The integers themselves, titled "<metric> value".
ValueAxis IntegerAxis(const std::string& metric);

std::string HistogramSvg(const std::string& metric, const CountedValues& d, const ValueAxis& axis);

// Two distributions of one metric on one axis (`dsanalyze compare --html`):
// bins over both ranges, `a` as bars and `b` as a dashed outline, a legend
// naming them, no percentile marks.
std::string OverlaySvg(const std::string& metric, const CountedValues& a, const CountedValues& b,
                       const ValueAxis& axis, const std::string& label_a,
                       const std::string& label_b);

}  // namespace dsanalyze
