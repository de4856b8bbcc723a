// "Did you mean" hints: the known name closest to a misspelt one.
//
// One rule for every place that refuses a name (config keys, dataset types,
// metric names, command-line options and subcommands), so that a typo gets
// the same kind of hint wherever it is made. Pure functions; thread-safe.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace dsanalyze {

// The choice nearest to `word` by edit distance, or "" when none is close:
// within max(2, |word| / 3) edits, where a prefix of a choice of 3 or more
// characters ("prefix" of "prefixes", "synthetic" of "synthetic_mod") counts
// as one edit. The first of equally near choices wins.
std::string_view ClosestName(std::string_view word, std::span<const std::string_view> choices);

// " (did you mean \"x\"?)" for x = ClosestName(word, choices), else "".
std::string DidYouMean(std::string_view word, std::span<const std::string_view> choices);

}  // namespace dsanalyze
