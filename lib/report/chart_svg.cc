#include "report/chart_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "page/numbers.h"
#include "page/svg.h"

namespace dsanalyze {
namespace {

using svg::Line;
using svg::Px;
using svg::Text;

std::string Open(double height, const std::string& title) {
  return svg::Open(svg::kWidth, height) + "<title>" + svg::Escape(title) +
         "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n" +
         Text(svg::kWidth / 2, 28, "middle", title, "font-size=\"16\" font-weight=\"bold\"");
}

std::string Rect(double x, double y, double w, double h, std::string_view style,
                 const std::string& tip) {
  return "<rect x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" width=\"" + Px(w) + "\" height=\"" + Px(h) +
         "\" " + std::string(style) + "><title>" + svg::Escape(tip) + "</title></rect>\n";
}

constexpr std::string_view kRank0Style = "fill=\"#4878a8\"";
constexpr std::string_view kSlowestStyle =
    "fill=\"none\" stroke=\"black\" stroke-dasharray=\"4,2\"";

// Log-10 axis ticks at each power of ten from 1 to at least `top`.
int Decades(double top) { return std::max(1, static_cast<int>(std::ceil(std::log10(top)))); }

}  // namespace

std::string TimingsSvg(const nlohmann::ordered_json& timings) {
  constexpr double kLabelW = 130, kRow = 30, kTopY = 70;
  const double height = kTopY + kRow * static_cast<double>(timings.size()) + 50;
  double longest = 1e-9;
  for (const auto& t : timings) longest = std::max(longest, t["max_seconds"].get<double>());
  const double plot_w = svg::kWidth - kLabelW - 120;
  std::string s = Open(height, "time per stage (seconds)");
  s += Rect(kLabelW, 44, 20, 10, kRank0Style, "rank 0");
  s += Text(kLabelW + 26, 53, "start", "rank 0 (solid)");
  s += Rect(kLabelW + 180, 44, 20, 10, kSlowestStyle, "slowest rank");
  s += Text(kLabelW + 206, 53, "start", "slowest rank (dashed outline)");
  double y = kTopY;
  for (const auto& t : timings) {
    const std::string stage = t["stage"].get<std::string>();
    const double r0 = t["rank0_seconds"].get<double>(), slow = t["max_seconds"].get<double>();
    s += Text(kLabelW - 8, y + 15, "end", stage);
    s += Rect(kLabelW, y + 4, std::max(0.5, r0 / longest * plot_w), 10, kRank0Style,
              stage + ": rank 0 " + Seconds(r0));
    s += Rect(kLabelW, y + 15, std::max(0.5, slow / longest * plot_w), 10, kSlowestStyle,
              stage + ": slowest rank " + Seconds(slow));
    s += Text(kLabelW + plot_w + 8, y + 15, "start", Seconds(r0) + " / " + Seconds(slow));
    y += kRow;
  }
  s += Line(kLabelW, kTopY, kLabelW, y, "stroke=\"black\"");
  return s + "</svg>\n";
}

std::string ZipfSvg(const std::string& metric, const std::vector<int64_t>& ranked) {
  using svg::kAxisY, svg::kLeft, svg::kPlotH, svg::kPlotW, svg::kTop;
  std::string s = Open(svg::kHeight, metric + ": " + Count(static_cast<uint64_t>(ranked.size())) +
                                         " tokens by rank and count (log-log)");
  s += Line(kLeft, kAxisY, kLeft + kPlotW, kAxisY, "stroke=\"black\"");
  s += Line(kLeft, kTop, kLeft, kAxisY, "stroke=\"black\"");
  s += Text(kLeft + kPlotW / 2, svg::kHeight - 25, "middle", "rank (1 = most frequent token)");
  s += Text(25, kTop + kPlotH / 2, "middle", "count",
            "transform=\"rotate(-90 25 " + Px(kTop + kPlotH / 2) + ")\"");
  if (ranked.empty())
    return s + Text(kLeft + kPlotW / 2, kTop + kPlotH / 2, "middle", "no tokens") + "</svg>\n";
  const int xd = Decades(static_cast<double>(ranked.size())), yd = Decades(ranked.front() + 1.0);
  const auto x = [&](double rank) { return kLeft + std::log10(rank) / xd * kPlotW; };
  const auto y = [&](double count) { return kAxisY - std::log10(count) / yd * kPlotH; };
  for (int d = 0; d <= std::max(xd, yd); ++d) {
    const std::string label = Count(static_cast<uint64_t>(std::llround(std::pow(10, d))));
    if (d <= xd)
      s += Line(x(std::pow(10, d)), kAxisY, x(std::pow(10, d)), kAxisY + 5, "stroke=\"black\"") +
           Text(x(std::pow(10, d)), kAxisY + 20, "middle", label);
    if (d <= yd)
      s += Line(kLeft - 5, y(std::pow(10, d)), kLeft, y(std::pow(10, d)), "stroke=\"black\"") +
           Text(kLeft - 8, y(std::pow(10, d)) + 4, "end", label);
  }
  // About 400 points spread evenly in log(rank): the curve's shape at any vocabulary size.
  std::string points;
  double next = 1;
  for (size_t r = 1; r <= ranked.size(); ++r) {
    if (static_cast<double>(r) < next && r != ranked.size()) continue;
    points += Px(x(static_cast<double>(r))) + "," + Px(y(static_cast<double>(ranked[r - 1]))) + " ";
    next = std::max(next + 1, next * std::pow(10.0, xd / 400.0));
  }
  return s + "<polyline fill=\"none\" stroke=\"#4878a8\" stroke-width=\"2\" points=\"" + points +
         "\"><title>" + svg::Escape(metric) + " rank-frequency</title></polyline>\n</svg>\n";
}

namespace {

// One component's row of ComponentsSvg at height y, x(v) placing value v.
std::string ComponentRow(const nlohmann::ordered_json& c, double y,
                         const std::function<double(double)>& x) {
  const std::string name = std::filesystem::path(c["prefix"].get<std::string>()).filename();
  const uint64_t samples = c["samples"].get<uint64_t>();
  std::string s = Text(svg::kLeft + 90, y + 4, "end", name + " (" + std::to_string(samples) + ")");
  if (samples == 0) return s + Text(svg::kLeft + 100, y + 4, "start", "no samples");
  const auto p = [&](const char* key) { return x(c["percentiles"][key].get<double>()); };
  s += Line(p("p5"), y, p("p95"), y, "stroke=\"black\"");
  s += Rect(
      p("p25"), y - 7, std::max(1.0, p("p75") - p("p25")), 14, kRank0Style,
      name + ": p25 " + c["percentiles"]["p25"].dump() + ", p75 " + c["percentiles"]["p75"].dump());
  s += Line(p("p50"), y - 9, p("p50"), y + 9, "stroke=\"black\" stroke-width=\"2\"");
  return s + "<circle cx=\"" + Px(x(c["mean"].get<double>())) + "\" cy=\"" + Px(y) +
         "\" r=\"3\" fill=\"white\" stroke=\"black\"/>\n";
}

}  // namespace

std::string ComponentsSvg(const std::string& metric, const nlohmann::ordered_json& per_component) {
  constexpr double kRow = 34, kTopY = 70;
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& c : per_component) {
    if (c["samples"].get<uint64_t>() == 0) continue;
    const double a = c["min"].get<double>(), b = c["max"].get<double>();
    lo = any ? std::min(lo, a) : a;
    hi = any ? std::max(hi, b) : b;
    any = true;
  }
  if (hi <= lo) hi = lo + 1;
  const double left = svg::kLeft + 100, width = svg::kWidth - left - svg::kRight;
  const auto x = [&](double v) { return left + (v - lo) / (hi - lo) * width; };
  const double axis = kTopY + kRow * static_cast<double>(per_component.size());
  std::string s = Open(axis + 50, metric + " per component (p5-p95, p25-p75, median, mean)");
  double y = kTopY + kRow / 2;
  for (const auto& c : per_component) {
    s += ComponentRow(c, y, x);
    y += kRow;
  }
  s += Line(left, axis, left + width, axis, "stroke=\"black\"");
  for (int t = 0; t <= 4; ++t) {
    const double v = lo + (hi - lo) * t / 4;
    char label[32];
    std::snprintf(label, sizeof label, "%.6g", v);
    s += Line(x(v), axis, x(v), axis + 5, "stroke=\"black\"");
    s += Text(x(v), axis + 20, "middle", label);
  }
  return s + "</svg>\n";
}

}  // namespace dsanalyze
