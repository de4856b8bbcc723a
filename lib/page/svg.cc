#include "page/svg.h"

#include <cstdio>

namespace dsanalyze::svg {

std::string Px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string Open(double width, double height) {
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" style=\"font-family: sans-serif; font-size: 12px\">\n",
                width, height, width, height);
  return buf;
}

std::string Escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string Text(double x, double y, std::string_view anchor, const std::string& text,
                 std::string_view extra) {
  // Appends, not `literal + temporary`: the latter trips GCC 12's -Wrestrict
  // false positive (GCC bug 105329).
  std::string s = "<text x=\"";
  s += Px(x);
  s += "\" y=\"";
  s += Px(y);
  s += "\" text-anchor=\"";
  s += anchor;
  s += '"';
  if (!extra.empty()) {
    s += ' ';
    s += extra;
  }
  s += '>';
  s += Escape(text);
  s += "</text>\n";
  return s;
}

std::string Line(double x1, double y1, double x2, double y2, std::string_view style) {
  return "<line x1=\"" + Px(x1) + "\" y1=\"" + Px(y1) + "\" x2=\"" + Px(x2) + "\" y2=\"" + Px(y2) +
         "\" " + std::string(style) + "/>\n";
}

}  // namespace dsanalyze::svg
