#include "util/closest_name.h"

#include <algorithm>
#include <vector>

namespace dsanalyze {
namespace {

// Levenshtein distance (insert, delete, substitute: one each).
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string_view ClosestName(std::string_view word, std::span<const std::string_view> choices,
                             std::span<const NameAlias> aliases) {
  for (const NameAlias& a : aliases)
    if (a.word == word) return a.name;
  std::string_view best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (std::string_view c : choices) {
    // A truncated name ("synthetic" for "synthetic_mod") counts as a near miss.
    const bool truncated = word.size() >= 3 && c.starts_with(word);
    const size_t d = truncated ? 1 : EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, std::span<const std::string_view> choices,
                       std::span<const NameAlias> aliases) {
  const std::string_view best = ClosestName(word, choices, aliases);
  if (best.empty()) return "";
  return " (did you mean \"" + std::string(best) + "\"?)";
}

}  // namespace dsanalyze
