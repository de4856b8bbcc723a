#include "curriculum/curriculum_svg.h"

#include <algorithm>
#include <functional>
#include <vector>

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

struct Plot {
  int64_t steps;
  double X(int64_t step) const {
    return kLeft +
           (steps > 1 ? static_cast<double>(step - 1) / static_cast<double>(steps - 1) : 0) *
               kPlotW;
  }
  static double Y(double share) { return kAxisY - std::clamp(share, 0.0, 1.0) * kPlotH; }
};

std::string Frame(const CurriculumReport& r) {
  std::string s = svg::Open(kWidth, kHeight) +
                  "<title>curriculum replay</title>\n"
                  "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += Text(kWidth / 2, 28, "middle",
            "curriculum: " + std::to_string(r.train_steps) + " steps" +
                (r.global_batch_size > 0 ? ", global batch " + std::to_string(r.global_batch_size)
                                         : std::string()) +
                ", N = " + std::to_string(r.samples),
            "font-size=\"16\" font-weight=\"bold\"");
  s += Line(kLeft, kAxisY, kLeft + kPlotW, kAxisY, "stroke=\"black\"");
  s += Line(kLeft, kTop, kLeft, kAxisY, "stroke=\"black\"");
  for (int t = 0; t <= 4; ++t) {
    const double y = Plot::Y(t / 4.0);
    if (t > 0) s += Line(kLeft, y, kLeft + kPlotW, y, "stroke=\"#e0e0e0\"");
    s += Text(kLeft - 8, y + 4, "end", std::to_string(25 * t) + "%");
    const int64_t step = 1 + (r.train_steps - 1) * t / 4;
    const double x = Plot{r.train_steps}.X(step);
    s += Line(x, kAxisY, x, kAxisY + 5, "stroke=\"black\"");
    s += Text(x, kAxisY + 20, "middle", std::to_string(step));
  }
  s += Text(kLeft + kPlotW / 2, kHeight - 25, "middle", "training step");
  s += Text(25, kTop + kPlotH / 2, "middle", "share of range / of samples",
            "transform=\"rotate(-90 25 " + Px(kTop + kPlotH / 2) + ")\"");
  return s;
}

// A step line through the replay's steps: share(step) holds until the next.
std::string StepLine(const CurriculumReport& r,
                     const std::function<double(const ReplayStep&)>& share, const char* color,
                     const std::string& label, int row) {
  const Plot plot{r.train_steps};
  std::string points;
  const auto& steps = r.replay.steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    const double y = Plot::Y(share(steps[i]));
    const int64_t until = i + 1 < steps.size() ? steps[i + 1].step : r.train_steps;
    points += Px(plot.X(steps[i].step)) + "," + Px(y) + " " + Px(plot.X(until)) + "," + Px(y) + " ";
  }
  const double ly = 52 + 16 * (row / 2), lx = kLeft + (row % 2) * kPlotW / 2;
  const std::string style = "stroke=\"" + std::string(color) +
                            "\" stroke-width=\"2\" stroke-dasharray=\"" +
                            kDashes[row % std::size(kDashes)] + "\"";
  return "<polyline fill=\"none\" " + style + " points=\"" + points + "\"><title>" + Escape(label) +
         "</title></polyline>\n" + Line(lx, ly - 4, lx + 24, ly - 4, style) +
         Text(lx + 30, ly, "start", label);
}

}  // namespace

std::string CurriculumSvg(const CurriculumReport& r) {
  std::string s = Frame(r);
  int row = 0;
  for (size_t m = 0; m < r.metrics.size(); ++m) {
    const Schedule& sc = r.metrics[m].schedule;
    const double lo = static_cast<double>(sc.min_difficulty);
    const double span = static_cast<double>(sc.max_difficulty) - lo;
    s += StepLine(
        r,
        [&](const ReplayStep& st) {
          return span > 0 ? (static_cast<double>(st.difficulty[m]) - lo) / span : 1.0;
        },
        kColors[(m + 1) % std::size(kColors)],
        r.metrics[m].name + " difficulty (" + std::to_string(sc.min_difficulty) + " .. " +
            std::to_string(sc.max_difficulty) + ")",
        row++);
  }
  const double n = static_cast<double>(std::max<uint64_t>(r.samples, 1));
  s += StepLine(
      r, [&](const ReplayStep& st) { return static_cast<double>(st.eligible) / n; }, kColors[0],
      "eligible pool (0 .. " + std::to_string(r.samples) + " samples)", row);
  return s + "</svg>\n";
}

}  // namespace dsanalyze
