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

// A word people write for a name that is not near it in spelling ("path"
// for a key named "file").
struct NameAlias {
  std::string_view word;
  std::string_view name;
};

// The name `word` is an alias of, if any; else the choice nearest to `word`
// by edit distance, or "" when none is close: within max(2, |word| / 3)
// edits, where a prefix of a choice of 3 or more characters ("prefix" of
// "prefixes", "synthetic" of "synthetic_mod") counts as one edit. The first
// of equally near choices wins.
std::string_view ClosestName(std::string_view word, std::span<const std::string_view> choices,
                             std::span<const NameAlias> aliases = {});

// " (did you mean \"x\"?)" for x = ClosestName(word, choices, aliases), else "".
std::string DidYouMean(std::string_view word, std::span<const std::string_view> choices,
                       std::span<const NameAlias> aliases = {});

}  // namespace dsanalyze
