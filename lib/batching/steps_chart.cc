#include "batching/steps_chart.h"

#include <algorithm>
#include <functional>

#include "page/numbers.h"
#include "page/svg.h"

namespace dsanalyze {
namespace {

using svg::Line;
using svg::Px;
using svg::Text;
constexpr double kPanelGap = 50;
constexpr double kPanelH = (svg::kPlotH - kPanelGap) / 2;
// Epoch boundaries are labelled up to this many epochs (more would overlap).
constexpr uint64_t kLabelledEpochs = 8;

// x of the boundary before step `step` (0 .. total).
struct StepAxis {
  uint64_t total;
  double X(uint64_t step) const {
    return svg::kLeft + static_cast<double>(step) / static_cast<double>(total) * svg::kPlotW;
  }
};

// One panel, `top` its upper edge, values 0 .. hi upwards; what it plots of
// a column.
struct Panel {
  double top;
  double hi;
  std::string title;
  const char* color;
  std::function<double(const StepSeries::Column&)> lo, high, mean;
  double Y(double v) const { return top + kPanelH - (hi > 0 ? v / hi : 0) * kPanelH; }
};

std::string Axes(const Panel& p) {
  const double bottom = p.top + kPanelH;
  std::string s = Line(svg::kLeft, bottom, svg::kLeft + svg::kPlotW, bottom, "stroke=\"black\"") +
                  Line(svg::kLeft, p.top, svg::kLeft, bottom, "stroke=\"black\"");
  for (int t = 0; t <= 2; ++t) {
    const double v = p.hi * t / 2, y = p.Y(v);
    if (t > 0) s += Line(svg::kLeft, y, svg::kLeft + svg::kPlotW, y, "stroke=\"#e0e0e0\"");
    s += Text(svg::kLeft - 8, y + 4, "end", Significant(v));
  }
  return s + Text(svg::kLeft, p.top - 10, "start", p.title, "font-weight=\"bold\"");
}

// The min..max band as one polygon (upper edge left to right, lower edge
// back) and the mean as a step line.
std::string Band(const StepSeries& series, const Panel& p) {
  const StepAxis axis{series.steps()};
  const auto& columns = series.columns();
  std::string upper, mean;
  std::vector<std::string> lower;
  for (size_t c = 0; c < columns.size(); ++c) {
    const StepSeries::Column& col = columns[c];
    const double x0 = axis.X(c * series.width()), x1 = axis.X(c * series.width() + col.steps);
    const auto pair = [](double x, double y) { return Px(x) + "," + Px(y) + " "; };
    upper += pair(x0, p.Y(p.high(col))) + pair(x1, p.Y(p.high(col)));
    lower.push_back(pair(x1, p.Y(p.lo(col))) + pair(x0, p.Y(p.lo(col))));
    mean += pair(x0, p.Y(p.mean(col))) + pair(x1, p.Y(p.mean(col)));
  }
  for (auto it = lower.rbegin(); it != lower.rend(); ++it) upper += *it;
  const std::string color = p.color;
  return "<polygon fill=\"" + color + "\" fill-opacity=\"0.25\" stroke=\"none\" points=\"" + upper +
         "\"/>\n<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\"" +
         mean + "\"/>\n";
}

std::string StepTicksAndEpochs(const StepsChart& chart, double top, double bottom) {
  const StepAxis axis{chart.series.steps()};
  std::string s;
  for (int t = 0; t <= 4; ++t) {
    const uint64_t step = axis.total * static_cast<uint64_t>(t) / 4;
    s += Line(axis.X(step), bottom, axis.X(step), bottom + 5, "stroke=\"black\"");
    s += Text(axis.X(step), bottom + 20, "middle", Count(step));
  }
  s += Text(svg::kLeft + svg::kPlotW / 2, svg::kHeight - 25, "middle", "training step");
  const uint64_t per = chart.steps_per_epoch;
  const uint64_t epochs = per > 0 ? axis.total / per : 1;
  for (uint64_t e = 1; e < epochs; ++e) {
    const double x = axis.X(e * per);
    s += Line(x, top, x, bottom, "stroke=\"#555\" stroke-dasharray=\"4,4\"");
    if (epochs <= kLabelledEpochs)
      s += Text(x + 3, top + 12, "start", "epoch " + std::to_string(e + 1), "fill=\"#555\"");
  }
  return s;
}

}  // namespace

void StepSeries::Add(int64_t batch_size, double lr_scale) {
  if (columns_.empty() || columns_.back().steps == width_) {
    if (columns_.size() == kMaxColumns) MergePairs();
    columns_.push_back({0, batch_size, batch_size, 0, lr_scale, lr_scale, 0});
  }
  Column& c = columns_.back();
  ++c.steps;
  c.size_min = std::min(c.size_min, batch_size);
  c.size_max = std::max(c.size_max, batch_size);
  c.size_sum += static_cast<double>(batch_size);
  c.lr_min = std::min(c.lr_min, lr_scale);
  c.lr_max = std::max(c.lr_max, lr_scale);
  c.lr_sum += lr_scale;
  ++steps_;
}

// Called with kMaxColumns full columns: each pair becomes one full column.
void StepSeries::MergePairs() {
  for (size_t c = 0; c < columns_.size() / 2; ++c) {
    const Column& a = columns_[2 * c];
    const Column& b = columns_[2 * c + 1];
    columns_[c] = {
        a.steps + b.steps,       std::min(a.size_min, b.size_min), std::max(a.size_max, b.size_max),
        a.size_sum + b.size_sum, std::min(a.lr_min, b.lr_min),     std::max(a.lr_max, b.lr_max),
        a.lr_sum + b.lr_sum};
  }
  columns_.resize(columns_.size() / 2);
  width_ *= 2;
}

std::string StepsSvg(const StepsChart& chart) {
  const StepSeries& s = chart.series;
  double size_hi = 0, lr_hi = 0;
  for (const StepSeries::Column& c : s.columns()) {
    size_hi = std::max(size_hi, static_cast<double>(c.size_max));
    lr_hi = std::max(lr_hi, c.lr_max);
  }
  const auto mean = [](double sum, const StepSeries::Column& c) {
    return sum / static_cast<double>(c.steps);
  };
  const Panel sizes{svg::kTop,
                    size_hi,
                    "samples per batch",
                    "#1f77b4",
                    [](const auto& c) { return static_cast<double>(c.size_min); },
                    [](const auto& c) { return static_cast<double>(c.size_max); },
                    [&](const auto& c) { return mean(c.size_sum, c); }};
  const Panel lr{svg::kTop + kPanelH + kPanelGap,
                 lr_hi,
                 "LR scale (x the configured LR, " + chart.lr_scaling + ")",
                 "#d62728",
                 [](const auto& c) { return c.lr_min; },
                 [](const auto& c) { return c.lr_max; },
                 [&](const auto& c) { return mean(c.lr_sum, c); }};
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"520\" viewBox=\"0 0 880 "
      "520\" "
      "style=\"font-family: sans-serif; font-size: 12px\">\n"
      "<title>batch size and LR over training</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  out += Text(svg::kWidth / 2, 28, "middle",
              "over training: " + Count(s.steps()) + " steps" +
                  (s.width() > 1 ? " (" + Count(s.width()) +
                                       " a column: band min..max, "
                                       "line mean)"
                                 : std::string()),
              "font-size=\"16\" font-weight=\"bold\"");
  out += Axes(sizes) + Band(s, sizes) + Axes(lr) + Band(s, lr);
  out += StepTicksAndEpochs(chart, svg::kTop, svg::kAxisY);
  return out + "</svg>\n";
}

}  // namespace dsanalyze
