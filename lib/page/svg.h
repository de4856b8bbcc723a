// Small builders for the standalone SVG charts dsanalyze writes (histograms
// beside an analysis, the curriculum chart): coordinates with two decimals,
// XML-escaped text, and <text>/<line> elements, each one line.
#pragma once

#include <string>
#include <string_view>

namespace dsanalyze::svg {

// Every chart's canvas and plot area, in pixels: an 880 × 520 canvas, the plot
// inside these margins, the x axis along its bottom.
constexpr double kWidth = 880, kHeight = 520;
constexpr double kLeft = 90, kRight = 40, kTop = 90, kBottom = 80;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr double kAxisY = kTop + kPlotH;

// A coordinate or length: "%.2f".
std::string Px(double v);

// The start of a standalone chart document: the XML declaration and the
// <svg> element, `width` × `height` px with the same viewBox, and the charts'
// font. Width and height are whole numbers and the font is a style, not
// attributes, so that the chart inlined in a page is valid HTML (tidy).
std::string Open(double width, double height);

// `s` with &, <, > and " escaped for XML text and attribute values.
std::string Escape(std::string_view s);

// <text x y text-anchor [extra]>escaped text</text>
std::string Text(double x, double y, std::string_view anchor, const std::string& text,
                 std::string_view extra = "");

// <line x1 y1 x2 y2 style/>
std::string Line(double x1, double y1, double x2, double y2, std::string_view style);

}  // namespace dsanalyze::svg
