#include "curriculum/curriculum_svg.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

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
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b"};
// Each line also has its own dash pattern, repeated in the legend, so the
// chart reads without colour (printed in black and white).
constexpr const char* kDashes[] = {"none", "8,4", "2,3", "10,3,2,3", "4,4"};
constexpr double kGap = 50;
constexpr double kPanelH = (kPlotH - kGap) / 2;
constexpr double kPoolTop = kTop + kPanelH + kGap;
// The pool gets a log axis when its smallest value is below this share of
// its largest (0 included): two orders of magnitude.
constexpr double kLogSpan = 100;

int64_t ChartSteps(const CurriculumReport& r) { return std::max<int64_t>(r.train_steps, 1); }

double StepX(const CurriculumReport& r, int64_t step) {
  const int64_t steps = ChartSteps(r);
  return kLeft +
         (steps > 1 ? static_cast<double>(step - 1) / static_cast<double>(steps - 1) : 0) * kPlotW;
}

// A panel's y: `top` its upper edge, `unit` a value in 0..1 upwards.
double PanelY(double top, double unit) {
  return top + kPanelH - std::clamp(unit, 0.0, 1.0) * kPanelH;
}

// The pool panel's scale: samples 0..N linear, or 1..10^k logarithmic
// (a pool of 0 sits on the axis, with 1).
struct PoolScale {
  bool log = false;
  double top = 1;  // N, or the decade at or above it
  double Unit(double samples) const {
    if (!log) return samples / top;
    return std::log10(std::max(samples, 1.0)) / std::log10(top);
  }
};

PoolScale PoolScaleOf(const CurriculumReport& r) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const ReplayStep& s : r.replay.steps) {
    lo = std::min(lo, s.eligible);
    hi = std::max(hi, s.eligible);
  }
  const double n = static_cast<double>(std::max<uint64_t>(r.samples, 1));
  if (hi == 0 || static_cast<double>(lo) * kLogSpan >= static_cast<double>(hi)) return {false, n};
  return {true, std::max(10.0, std::pow(10.0, std::ceil(std::log10(n))))};
}

std::string ChartHead(const CurriculumReport& r) {
  const std::string s = svg::Open(kWidth, kHeight) +
                        "<title>curriculum replay</title>\n"
                        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  return s + Text(kWidth / 2, 28, "middle",
                  "curriculum: " + Count(r.train_steps) + " steps" +
                      (r.global_batch_size > 0 ? ", batch " + Count(r.global_batch_size)
                                               : std::string()) +
                      ", N = " + Count(r.samples),
                  "font-size=\"16\" font-weight=\"bold\"");
}

// A panel's title along its y axis.
std::string YTitle(double top, const std::string& title) {
  const std::string y = Px(top + kPanelH / 2);
  return Text(25, top + kPanelH / 2, "middle", title, "transform=\"rotate(-90 25 " + y + ")\"");
}

// Both panels' frames, the difficulty's 0..100% ticks, the step ticks.
std::string ChartAxes(const CurriculumReport& r) {
  std::string s;
  for (const double top : {kTop, kPoolTop}) {
    s += Line(kLeft, top + kPanelH, kLeft + kPlotW, top + kPanelH, "stroke=\"black\"");
    s += Line(kLeft, top, kLeft, top + kPanelH, "stroke=\"black\"");
  }
  for (int t = 0; t <= 4; ++t) {
    const double y = PanelY(kTop, t / 4.0);
    if (t > 0) s += Line(kLeft, y, kLeft + kPlotW, y, "stroke=\"#e0e0e0\"");
    s += Text(kLeft - 8, y + 4, "end", std::to_string(25 * t) + "%");
    const int64_t step = 1 + (ChartSteps(r) - 1) * t / 4;
    s += Line(StepX(r, step), kAxisY, StepX(r, step), kAxisY + 5, "stroke=\"black\"");
    s += Text(StepX(r, step), kAxisY + 20, "middle", Count(step));
  }
  s += YTitle(kTop, "difficulty (share of range)");
  return s + Text(kLeft + kPlotW / 2, kHeight - 25, "middle", "training step");
}

// The pool panel's ticks (every decade on a log axis, quarters of N on a
// linear one), its title and the global batch size as a dashed line.
std::string PoolAxis(const CurriculumReport& r, const PoolScale& scale) {
  std::string s;
  std::vector<double> ticks;
  if (scale.log)
    for (double v = 1; v <= scale.top; v *= 10) ticks.push_back(v);
  else
    for (int t = 0; t <= 2; ++t) ticks.push_back(std::round(scale.top * t / 2));
  for (const double v : ticks) {
    const double y = PanelY(kPoolTop, scale.Unit(v));
    s += Line(kLeft, y, kLeft + kPlotW, y, "stroke=\"#e0e0e0\"");
    s += Text(kLeft - 8, y + 4, "end",
              scale.log && v == 1 ? "0..1" : Count(static_cast<uint64_t>(v)));
  }
  s += YTitle(kPoolTop, std::string("eligible pool") + (scale.log ? " (log)" : ""));
  if (r.global_batch_size <= 0) return s;
  const double y = PanelY(kPoolTop, scale.Unit(static_cast<double>(r.global_batch_size)));
  return s + Line(kLeft, y, kLeft + kPlotW, y, "stroke=\"black\" stroke-dasharray=\"3,3\"") +
         Text(kLeft + 4, y - 4, "start", "global batch " + Count(r.global_batch_size));
}

// The steps an error concerns, shaded over both panels: from the error's
// step until the replay's next step (the state it reports holds until then).
std::string ErrorShading(const CurriculumReport& r) {
  const auto& steps = r.replay.steps;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const CurriculumWarning& w : r.warnings) {
    if (SeverityOf(w.kind) != Severity::kError || steps.empty()) continue;
    const int64_t first = std::max<int64_t>(w.step, 1);
    const auto next = std::upper_bound(steps.begin(), steps.end(), first,
                                       [](int64_t v, const ReplayStep& s) { return v < s.step; });
    const int64_t until = next == steps.end() ? ChartSteps(r) : next->step;
    if (spans.empty() || spans.back() != std::pair{first, until}) spans.push_back({first, until});
  }
  std::string s;
  for (const auto& [first, until] : spans) {
    const double x0 = StepX(r, first), x1 = std::max(StepX(r, until), x0 + 2);
    s += "<rect x=\"" + Px(x0) + "\" y=\"" + Px(kTop) + "\" width=\"" + Px(x1 - x0) +
         "\" height=\"" + Px(kPlotH) + "\" fill=\"#f4b0b0\" fill-opacity=\"0.6\"><title>error at " +
         (until - first > 1 ? "steps " + Count(first) + ".." + Count(until - 1)
                            : "step " + Count(first)) +
         "</title></rect>\n";
  }
  return s;
}

// A step line through the replay's steps (unit(step) holds until the next)
// in the panel at `top`, and its legend entry (row `row`, two a line).
std::string StepLine(const CurriculumReport& r, double top,
                     const std::function<double(const ReplayStep&)>& unit, const char* color,
                     const std::string& label, int row) {
  std::string points;
  const auto& steps = r.replay.steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    const double y = PanelY(top, unit(steps[i]));
    const int64_t until = i + 1 < steps.size() ? steps[i + 1].step : ChartSteps(r);
    points +=
        Px(StepX(r, steps[i].step)) + "," + Px(y) + " " + Px(StepX(r, until)) + "," + Px(y) + " ";
  }
  const double ly = 50 + 14 * (row / 2), lx = kLeft + (row % 2) * kPlotW / 2;
  const std::string style = "stroke=\"" + std::string(color) +
                            "\" stroke-width=\"2\" stroke-dasharray=\"" +
                            kDashes[row % std::size(kDashes)] + "\"";
  return "<polyline fill=\"none\" " + style + " points=\"" + points + "\"><title>" + Escape(label) +
         "</title></polyline>\n" + Line(lx, ly - 4, lx + 24, ly - 4, style) +
         Text(lx + 30, ly, "start", label);
}

}  // namespace

std::string CurriculumSvg(const CurriculumReport& r) {
  std::string s = ChartHead(r) + ErrorShading(r) + ChartAxes(r);
  const PoolScale pool = PoolScaleOf(r);
  s += PoolAxis(r, pool);
  int row = 0;
  for (size_t m = 0; m < r.metrics.size(); ++m) {
    const Schedule& sc = r.metrics[m].schedule;
    const double lo = static_cast<double>(sc.min_difficulty);
    const double span = static_cast<double>(sc.max_difficulty) - lo;
    s += StepLine(
        r, kTop,
        [&](const ReplayStep& st) {
          return span > 0 ? (static_cast<double>(st.difficulty[m]) - lo) / span : 1.0;
        },
        kColors[(m + 1) % std::size(kColors)],
        r.metrics[m].name + " difficulty (" + Count(sc.min_difficulty) + " .. " +
            Count(sc.max_difficulty) + ")",
        row++);
  }
  s += StepLine(
      r, kPoolTop,
      [&](const ReplayStep& st) { return pool.Unit(static_cast<double>(st.eligible)); }, kColors[0],
      "eligible pool (0 .. " + Count(r.samples) + " samples)", row);
  return s + "</svg>\n";
}

}  // namespace dsanalyze
