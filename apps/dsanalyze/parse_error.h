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

// A check for options that take a count: decimal digits, not all zeros,
// refused with "expected a positive integer, got \"abc\"" (CLI::PositiveNumber's
// message spells out the range of a double). The range of the option's type
// is CheckIntegerOptions' to check.
CLI::Validator PositiveInteger();

// Gives every option of `app` and of its subcommands that CLI11 converts to an
// integer (type INT or UINT) the one check of its text: decimal digits, a '-'
// first for a negative value, within int64 (INT) or uint64 (UINT); leading
// zeros are dropped. Without it CLI11 reads the text with strtoll/strtoull in
// base 0: a value past the type's range becomes its largest value
// ("--seed 18446744073709551616" ran with 2^64 - 1), "-1" an unsigned 2^64 - 1,
// "010" octal 8 and "0x10" hex. The error reads
//   --seed: expected an integer from 0 to 18446744073709551615, got
//   "18446744073709551616"
// Call it once every option is registered, before parsing.
void CheckIntegerOptions(CLI::App& app);

}  // namespace dsanalyze
