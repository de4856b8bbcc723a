#include "page/histogram_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "page/numbers.h"
#include "page/svg.h"

namespace dsanalyze {
namespace {

using svg::Escape;
using svg::Line;
using svg::Px;
using svg::Text;

using svg::kAxisY;
using svg::kHeight;
using svg::kLeft;
using svg::kPlotH;
using svg::kPlotW;
using svg::kTop;
using svg::kWidth;
constexpr int kMaxUnitBins = 60;  // up to this many distinct integers: one bar each
constexpr int kTargetBins = 80;   // wider ranges: 32..80 bins of a round width

using u128 = unsigned __int128;

// The smallest 1, 2 or 5 × 10^k that is >= x (x >= 1): round bin widths and tick steps.
u128 RoundUp125(u128 x) {
  for (u128 base = 1;; base *= 10)
    for (u128 m : {1, 2, 5})
      if (m * base >= x) return m * base;
}

u128 CeilDiv(u128 a, u128 b) { return (a + b - 1) / b; }

// Floor division for a possibly negative numerator.
__int128 FloorDiv(__int128 a, __int128 b) {
  __int128 q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

std::string Integer(__int128 v) {
  if (v > -10000000 && v < 10000000) return Count(static_cast<int64_t>(v));
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3Lg", static_cast<long double>(v));
  return buf;
}

// The document head, title, heading and both axis lines: everything the
// chart shows even without samples. Width and height are plain integers and
// the font a style (tidy rejects "880.00" and font attributes on <svg>).
std::string Frame(const std::string& metric, const std::string& heading,
                  const std::string& counted) {
  std::string svg = svg::Open(kWidth, kHeight) + "<title>" + Escape(metric) +
                    " histogram</title>\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += Text(kWidth / 2, 28, "middle", heading, "font-size=\"16\" font-weight=\"bold\"");
  svg += Line(kLeft, kAxisY, kLeft + kPlotW, kAxisY, "stroke=\"black\"");
  svg += Line(kLeft, kTop, kLeft, kAxisY, "stroke=\"black\"");
  svg += Text(25, kTop + kPlotH / 2, "middle", counted,
              "transform=\"rotate(-90 25 " + Px(kTop + kPlotH / 2) + ")\"");
  return svg;
}

// Bins [start + b·width, start + (b+1)·width) for b < bins, over integers.
struct Bins {
  __int128 start;
  u128 width;
  u128 bins;
  std::vector<uint64_t> counts;  // samples in each bin
};

// The bins over lo..hi, counting d's samples (all within lo..hi).
Bins MakeBins(__int128 lo, __int128 hi, const CountedValues& d) {
  const u128 span = static_cast<u128>(hi - lo) + 1;
  Bins b;
  b.width = span <= kMaxUnitBins ? 1 : RoundUp125(CeilDiv(span, kTargetBins));
  b.start = lo;  // not a round multiple below it: the first bin would look half empty
  b.bins = static_cast<u128>(hi - b.start) / b.width + 1;
  b.counts.assign(static_cast<size_t>(b.bins), 0);
  for (size_t i = 0; i < d.values.size(); ++i)
    b.counts[static_cast<size_t>(static_cast<u128>(d.values[i] - b.start) / b.width)] +=
        d.counts[i];
  return b;
}

// Where values and counts land on the plot. The y axis has round steps from
// 0 to a round top at or above the tallest bar.
struct Scale {
  __int128 start;     // the value at the left end of the x axis
  long double range;  // values across the x axis
  u128 y_step;
  u128 y_top;
  // A log x axis (LogHistogram): log10 of the values at its ends.
  bool log = false;
  double log_lo = 0, log_hi = 1;

  // x of the centre of integer value v (which covers [v, v+1)).
  double X(__int128 v) const {
    if (log) return LogX(static_cast<double>(v) + 0.5);
    return kLeft +
           static_cast<double>((static_cast<long double>(v - start) + 0.5L) / range * kPlotW);
  }
  // x of the real number `v` > 0 on a log axis.
  double LogX(double v) const {
    return kLeft + (std::log10(v) - log_lo) / (log_hi - log_lo) * kPlotW;
  }
  double Y(u128 count) const {
    return kAxisY - static_cast<double>(static_cast<long double>(count) / y_top * kPlotH);
  }
};

uint64_t MaxCount(const Bins& b) { return *std::max_element(b.counts.begin(), b.counts.end()); }

Scale MakeScale(const Bins& b, uint64_t max_count) {
  Scale s;
  s.start = b.start;
  s.range = static_cast<long double>(b.bins * b.width);
  s.y_step = RoundUp125(CeilDiv(max_count, 6));
  s.y_top = CeilDiv(max_count, s.y_step) * s.y_step;
  return s;
}

// y ticks with labels, and light grid lines above 0.
std::string YAxis(const Scale& s) {
  std::string svg;
  for (u128 t = 0; t <= s.y_top; t += s.y_step) {
    const double y = s.Y(t);
    if (t > 0) svg += Line(kLeft, y, kLeft + kPlotW, y, "stroke=\"#e0e0e0\"");
    svg += Line(kLeft - 5, y, kLeft, y, "stroke=\"black\"");
    svg += Text(kLeft - 8, y + 4, "end", Integer(static_cast<__int128>(t)));
  }
  return svg;
}

// The bars of the non-empty bins, each with a tooltip.
std::string Bars(const Bins& b, const Scale& s, const ValueAxis& axis) {
  const double bar_w = kPlotW / static_cast<double>(b.bins);
  const double gap = bar_w > 3 ? 1 : 0;
  std::string svg = "<g fill=\"#4878a8\">\n";
  for (size_t i = 0; i < b.counts.size(); ++i) {
    if (b.counts[i] == 0) continue;
    const __int128 first = b.start + static_cast<__int128>(i * b.width);
    const __int128 last = first + static_cast<__int128>(b.width) - 1;
    const double y = s.Y(b.counts[i]);
    svg += "<rect x=\"" + Px(kLeft + i * bar_w + gap / 2) + "\" y=\"" + Px(y) + "\" width=\"" +
           Px(bar_w - gap) + "\" height=\"" + Px(kAxisY - y) + "\"><title>" +
           (b.width == 1 ? axis.label(first) : axis.label(first) + ".." + axis.label(last)) + ": " +
           Count(b.counts[i]) + " " + axis.counted + "</title></rect>\n";
  }
  return svg + "</g>\n";
}

// x axis: round value ticks inside the binned range, and its label.
std::string XAxis(const Bins& b, const Scale& s, const ValueAxis& axis) {
  std::string svg;
  const u128 x_step = RoundUp125(CeilDiv(b.bins * b.width, 8));
  const __int128 x_end = b.start + static_cast<__int128>(b.bins * b.width);
  for (__int128 t = FloorDiv(b.start + static_cast<__int128>(x_step) - 1, x_step) * x_step;
       t < x_end; t += static_cast<__int128>(x_step)) {
    const double x = s.X(t);
    svg += Line(x, kAxisY, x, kAxisY + 5, "stroke=\"black\"");
    svg += Text(x, kAxisY + 20, "middle", axis.label(t));
  }
  svg += Text(kLeft + kPlotW / 2, kHeight - 25, "middle",
              axis.title + (b.width == 1 ? std::string()
                                         : " (bin width " +
                                               axis.width(static_cast<__int128>(b.width)) + ")"));
  return svg;
}

// Percentile marks, labels staggered so they do not overlap.
std::string PercentileMarks(const CountedValues& d, const Scale& s, const ValueAxis& axis) {
  std::string svg;
  const int marks[] = {10, 50, 90};
  for (int i = 0; i < 3; ++i) {
    const int64_t v = NearestRankPercentile(d, marks[i]);
    const double x = s.X(v);
    const double label_y = kTop - 40 + 14 * i;
    svg += Line(x, label_y + 4, x, kAxisY, "stroke=\"#c03030\" stroke-dasharray=\"5,4\"");
    const bool right_side = x > kLeft + 0.8 * kPlotW;
    svg += Text(right_side ? x - 4 : x + 4, label_y, right_side ? "end" : "start",
                axis.mark ? axis.mark(marks[i], v)
                          : std::string("p") + std::to_string(marks[i]) + " = " + axis.label(v),
                "fill=\"#c03030\"");
  }
  return svg;
}

std::string Heading(const std::string& metric, const CountedValues& d, const std::string& counted) {
  return metric + ": N = " + Count(d.samples) + " " + counted + ", " +
         Count(static_cast<uint64_t>(d.values.size())) + " distinct values";
}

std::string NoSamples(const ValueAxis& axis) {
  return Text(kLeft + kPlotW / 2, kTop + kPlotH / 2, "middle", "no " + axis.counted) +
         Text(kLeft + kPlotW / 2, kHeight - 25, "middle", axis.title) + "</svg>\n";
}

// The second distribution of an overlay: its bins' outline as a dashed step
// line over the first one's bars, so the two read apart without colour.
std::string Outline(const Bins& b, const Scale& s, const std::string& label) {
  const double bar_w = kPlotW / static_cast<double>(b.bins);
  std::string points = Px(kLeft) + "," + Px(kAxisY) + " ";
  for (size_t i = 0; i < b.counts.size(); ++i) {
    const double y = s.Y(b.counts[i]);
    points +=
        Px(kLeft + i * bar_w) + "," + Px(y) + " " + Px(kLeft + (i + 1) * bar_w) + "," + Px(y) + " ";
  }
  points += Px(kLeft + b.counts.size() * bar_w) + "," + Px(kAxisY);
  return "<polyline fill=\"none\" stroke=\"black\" stroke-width=\"2\" "
         "stroke-dasharray=\"6,3\" points=\"" +
         points + "\"><title>" + Escape(label) + "</title></polyline>\n";
}

// The overlay's legend: which distribution is the bars, which the outline.
std::string Legend(const std::string& label_a, const std::string& label_b) {
  return "<rect x=\"" + Px(kLeft) + "\" y=\"44\" width=\"20\" height=\"10\" fill=\"#4878a8\"/>\n" +
         Text(kLeft + 26, 53, "start", "bars: " + label_a) +
         Line(kLeft + kPlotW / 2, 49, kLeft + kPlotW / 2 + 20, 49,
              "stroke=\"black\" stroke-width=\"2\" stroke-dasharray=\"6,3\"") +
         Text(kLeft + kPlotW / 2 + 26, 53, "start", "dashed outline: " + label_b);
}

// Log-spaced bins from the smallest value: edges[i] ... edges[i + 1] - 1,
// about 10 a decade (each edge the next integer at least 10^(1/10) times the
// first's multiple), the last edge past the largest value.
struct LogBins {
  std::vector<__int128> edges;  // the last may lie past int64
  std::vector<uint64_t> counts;
};

LogBins MakeLogBins(const CountedValues& d) {
  LogBins b;
  const long double lo = d.values.front();
  b.edges.push_back(d.values.front());
  for (int i = 1; b.edges.back() <= d.values.back(); ++i)
    b.edges.push_back(std::max(b.edges.back() + 1,
                               static_cast<__int128>(std::ceil(lo * std::pow(10.0L, i / 10.0L)))));
  b.counts.assign(b.edges.size() - 1, 0);
  for (size_t i = 0; i < d.values.size(); ++i)
    b.counts[static_cast<size_t>(
        std::upper_bound(b.edges.begin(), b.edges.end(), static_cast<__int128>(d.values[i])) -
        b.edges.begin() - 1)] += d.counts[i];
  return b;
}

// The bars of a log histogram and its x axis: a tick at each power of ten.
std::string LogBarsAndAxis(const LogBins& b, const Scale& s, const ValueAxis& axis) {
  std::string svg = "<g fill=\"#4878a8\">\n";
  for (size_t i = 0; i < b.counts.size(); ++i) {
    if (b.counts[i] == 0) continue;
    const double x0 = s.LogX(static_cast<double>(b.edges[i])),
                 x1 = s.LogX(static_cast<double>(b.edges[i + 1])), y = s.Y(b.counts[i]);
    svg += "<rect x=\"" + Px(x0) + "\" y=\"" + Px(y) + "\" width=\"" +
           Px(std::max(0.5, x1 - x0 - 1)) + "\" height=\"" + Px(kAxisY - y) + "\"><title>" +
           axis.label(b.edges[i]) + ".." + axis.label(b.edges[i + 1] - 1) + ": " +
           Count(b.counts[i]) + " " + axis.counted + "</title></rect>\n";
  }
  svg += "</g>\n";
  for (double t = std::pow(10.0, std::ceil(s.log_lo)); std::log10(t) <= s.log_hi + 1e-9; t *= 10) {
    const double x = s.LogX(t);
    svg += Line(x, kAxisY, x, kAxisY + 5, "stroke=\"black\"") +
           Text(x, kAxisY + 20, "middle", axis.label(static_cast<__int128>(std::llround(t))));
  }
  return svg + Text(kLeft + kPlotW / 2, kHeight - 25, "middle",
                    axis.title + " (log scale: bins of equal ratio)");
}

// Values of at least 1 spanning orders of magnitude, in their bulk too: the
// largest at least 1000 times the smallest, p90 at least 30 times p10.
bool SpansDecades(const CountedValues& d) {
  return d.values.front() >= 1 && d.values.back() / 1000 >= d.values.front() &&
         NearestRankPercentile(d, 90) / 30 >= NearestRankPercentile(d, 10);
}

std::string LogHistogram(const CountedValues& d, const ValueAxis& axis) {
  const LogBins bins = MakeLogBins(d);
  Scale scale{};
  scale.log = true;
  scale.log_lo = std::log10(static_cast<double>(bins.edges.front()));
  scale.log_hi = std::log10(static_cast<double>(bins.edges.back()));
  const uint64_t max_count = *std::max_element(bins.counts.begin(), bins.counts.end());
  scale.y_step = RoundUp125(CeilDiv(max_count, 6));
  scale.y_top = CeilDiv(max_count, scale.y_step) * scale.y_step;
  return YAxis(scale) + LogBarsAndAxis(bins, scale, axis) + PercentileMarks(d, scale, axis);
}

}  // namespace

int64_t NearestRankPercentile(const CountedValues& d, int p) {
  // rank = ceil(p · N / 100), at least 1; in 128 bits so p · N cannot overflow.
  const unsigned __int128 scaled = static_cast<unsigned __int128>(p) * d.samples;
  const uint64_t rank = std::max<uint64_t>(1, static_cast<uint64_t>((scaled + 99) / 100));
  uint64_t seen = 0;
  for (size_t i = 0; i < d.values.size(); ++i) {
    seen += d.counts[i];
    if (seen >= rank) return d.values[i];
  }
  return d.values.back();
}

std::string OverlaySvg(const std::string& metric, const CountedValues& a, const CountedValues& b,
                       const ValueAxis& axis, const std::string& label_a,
                       const std::string& label_b) {
  std::string svg = Frame(metric,
                          metric + ": N = " + std::to_string(a.samples) + " and " +
                              std::to_string(b.samples) + " " + axis.counted,
                          axis.counted);
  svg += Legend(label_a + " (N = " + std::to_string(a.samples) + ")",
                label_b + " (N = " + std::to_string(b.samples) + ")");
  if (a.samples == 0 && b.samples == 0) return svg + NoSamples(axis);
  const auto lo = [](const CountedValues& d) { return d.samples ? d.values.front() : INT64_MAX; };
  const auto hi = [](const CountedValues& d) { return d.samples ? d.values.back() : INT64_MIN; };
  const __int128 first = std::min(lo(a), lo(b)), last = std::max(hi(a), hi(b));
  const Bins ba = MakeBins(first, last, a), bb = MakeBins(first, last, b);
  const Scale scale = MakeScale(ba, std::max(MaxCount(ba), MaxCount(bb)));
  svg +=
      YAxis(scale) + Bars(ba, scale, axis) + Outline(bb, scale, label_b) + XAxis(ba, scale, axis);
  return svg + "</svg>\n";
}

ValueAxis IntegerAxis(const std::string& metric) { return {metric + " value", Integer, Integer}; }

std::string HistogramSvg(const std::string& metric, const CountedValues& d, const ValueAxis& axis) {
  std::string svg = Frame(metric, Heading(metric, d, axis.counted), axis.counted);
  if (d.samples == 0) return svg + NoSamples(axis);
  const bool a_decade = d.values.front() >= 1 && d.values.back() / 10 >= d.values.front();
  if (SpansDecades(d) || (axis.log_from_a_decade && a_decade))
    return svg + LogHistogram(d, axis) + "</svg>\n";
  const Bins bins = MakeBins(d.values.front(), d.values.back(), d);
  const Scale scale = MakeScale(bins, MaxCount(bins));
  svg += YAxis(scale);
  svg += Bars(bins, scale, axis);
  svg += XAxis(bins, scale, axis);
  svg += PercentileMarks(d, scale, axis);
  return svg + "</svg>\n";
}

}  // namespace dsanalyze
