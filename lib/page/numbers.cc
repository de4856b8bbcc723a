#include "page/numbers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <string_view>

namespace dsanalyze {
namespace {

// "1234567" -> "1,234,567"; a leading '-' is kept in front.
std::string WithSeparators(std::string_view digits) {
  std::string sign;
  if (!digits.empty() && digits.front() == '-') {
    sign = "-";
    digits.remove_prefix(1);
  }
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return sign + out;
}

// Drops trailing zeros of a fraction, and the point when none is left.
std::string TrimFraction(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

}  // namespace

std::string Count(uint64_t n) { return WithSeparators(std::to_string(n)); }

std::string Count(int64_t n) { return WithSeparators(std::to_string(n)); }

std::string Significant(double v, int digits) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "∞" : "−∞";
  if (v == 0) return "0";  // also -0.0
  if (std::fabs(v) >= 1e15) {
    char text[32];
    std::snprintf(text, sizeof text, "%.*g", digits, v);
    return text;
  }
  // Decimals so that the first `digits` significant digits are shown.
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, v);
  std::string s = TrimFraction(text);
  if (s == "-0") return "0";
  const size_t point = s.find('.');
  return WithSeparators(s.substr(0, point)) + (point == std::string::npos ? "" : s.substr(point));
}

std::string Percent(double fraction, int digits) {
  return Significant(fraction * 100, digits) + "%";
}

std::string Seconds(double seconds) { return Significant(seconds, 2) + " s"; }

std::string Bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return Significant(value, 3) + " " + kUnits[unit];
}

}  // namespace dsanalyze
