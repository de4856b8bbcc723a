// The one line dsanalyze prints for a command line that CLI11 refuses.
//
// CLI11's own report is two lines ("The following argument was not expected:
// --confg" / "Run with --help ...") without the tool's name; every other
// error of dsanalyze is one line "dsanalyze: error: <problem>", so a parse
// error is made to read the same, with a hint from util/closest_name.h.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace dsanalyze {

// The problem, without the "dsanalyze: error: " prefix, for a ParseError
// thrown by `app.parse` (not for --help or --version, whose exit code is 0):
//   unknown option "--confg" (did you mean "--config"?); see dsanalyze run --help
//   unknown command "verfy" (did you mean "verify"?); see dsanalyze --help
// An unknown argument is named before any other complaint (a required
// --config that a typo hid), since it is the cause.
std::string ParseErrorLine(const CLI::App& app, const CLI::ParseError& e);

// A check for options that take a count: a positive integer, refused with
// "expected a positive integer, got \"abc\"" (CLI::PositiveNumber's message
// spells out the range of a double).
CLI::Validator PositiveInteger();

// A check for options that take any uint64 (a seed): decimal digits up to
// 2^64 - 1. CLI11 alone would read "-1" as 2^64 - 1.
CLI::Validator Uint64();

}  // namespace dsanalyze
