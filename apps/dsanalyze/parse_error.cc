#include "parse_error.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include "util/closest_name.h"

namespace dsanalyze {
namespace {

// The subcommand the command line chose, or `app` itself.
const CLI::App* ChosenCommand(const CLI::App& app) {
  const std::vector<CLI::App*> chosen = app.get_subcommands();
  return chosen.empty() ? &app : chosen.back();
}

// The long names of `command`'s options: "--config", "--help", ... Short
// ones are left out: every one-letter typo is one edit from each of them.
std::vector<std::string> OptionNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options())
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

std::string Hint(const std::string& word, const std::vector<std::string>& names) {
  const std::vector<std::string_view> views(names.begin(), names.end());
  return DidYouMean(word, views);
}

// "unknown option ..." for the first argument no command took, or "".
std::string UnknownArgument(const CLI::App& app, const CLI::App& command) {
  const std::vector<std::string> extras = app.remaining(true);
  if (extras.empty()) return "";
  const auto option = std::find_if(extras.begin(), extras.end(),
                                   [](const std::string& a) { return a.starts_with("-"); });
  if (option != extras.end()) {
    const std::string name = option->substr(0, option->find('='));  // --confg=x.json
    return "unknown option \"" + name + "\"" + Hint(name, OptionNames(command));
  }
  const std::string& word = extras.front();
  if (&command == &app) {
    const std::string hint = Hint(word, SubcommandNames(app));
    if (!hint.empty()) return "unknown command \"" + word + "\"" + hint;
  }
  return "unexpected argument \"" + word + "\"";
}

bool AllDigits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "" when `text` is a decimal integer in the range of int64 (`is_signed`) or
// uint64, then without leading zeros; else the problem. Compares digit
// strings, so no value of any length is converted (nothing to overflow).
std::string IntegerProblem(std::string& text, bool is_signed) {
  const std::string problem =
      std::string("expected an integer from ") +
      (is_signed ? "-9223372036854775808 to 9223372036854775807" : "0 to 18446744073709551615") +
      ", got \"" + text + "\"";
  const bool negative = text.starts_with('-');
  std::string digits = text.substr(negative ? 1 : 0);
  if (!AllDigits(digits)) return problem;
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
  // The largest magnitude the type holds with that sign.
  const std::string_view largest = is_signed
                                       ? (negative ? "9223372036854775808" : "9223372036854775807")
                                       : (negative ? "0" : "18446744073709551615");
  if (digits.size() > largest.size() || (digits.size() == largest.size() && digits > largest))
    return problem;
  text = (negative && digits != "0" ? "-" : "") + digits;
  return "";
}

void CheckIntegerOptionsOf(CLI::App& command) {
  constexpr const char* kName = "integer range";
  for (CLI::Option* option : command.get_options()) {
    const std::string type = option->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    if (base != "INT" && base != "UINT") continue;
    const bool is_signed = base == "INT";
    // After the option's own checks (a count's "expected a positive integer"
    // comes first), and allowed to rewrite the text, which check() forbids.
    option->check(
        CLI::Validator([is_signed](std::string& text) { return IntegerProblem(text, is_signed); },
                       ""),
        kName);
    option->get_validator(kName)->non_modifying(false);
  }
}

}  // namespace

std::string ParseErrorLine(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& command = *ChosenCommand(app);
  std::string problem = UnknownArgument(app, command);
  if (problem.empty()) problem = e.what();
  // CLI11 says "--rows: 1 required TEXT missing" for an option given no value.
  const size_t colon = problem.find(": 1 required ");
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr && colon != std::string::npos)
    problem = problem.substr(0, colon) + ": needs a value";
  // CLI11 says "--a excludes --b" for two options that contradict each other.
  const size_t excludes = problem.find(" excludes ");
  if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr && excludes != std::string::npos)
    problem.replace(excludes, std::string_view(" excludes ").size(), " cannot be given with ");
  std::string help = "dsanalyze ";
  if (&command != &app) help += command.get_name() + " ";
  return problem + "; see " + help + "--help";
}

CLI::Validator PositiveInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!AllDigits(text) || text.find_first_not_of('0') == std::string::npos)
          return "expected a positive integer, got \"" + text + "\"";
        return "";
      },
      "POSITIVE");
}

void CheckIntegerOptions(CLI::App& app) {
  CheckIntegerOptionsOf(app);
  for (CLI::App* command : app.get_subcommands({})) CheckIntegerOptions(*command);
}

}  // namespace dsanalyze
