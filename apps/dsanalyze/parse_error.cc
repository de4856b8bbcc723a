#include "parse_error.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>
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

// `text` as an integer written in decimal digits only (no sign, no 0x), if it
// fits uint64.
std::optional<uint64_t> DecimalUint64(const std::string& text) {
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
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
  std::string help = "dsanalyze ";
  if (&command != &app) help += command.get_name() + " ";
  return problem + "; see " + help + "--help";
}

CLI::Validator PositiveInteger() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const std::optional<uint64_t> v = DecimalUint64(text);
        if (!v || *v == 0) return "expected a positive integer, got \"" + text + "\"";
        return "";
      },
      "POSITIVE");
}

CLI::Validator Uint64() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        if (!DecimalUint64(text))
          return "expected an integer from 0 to 18446744073709551615, got \"" + text + "\"";
        return "";
      },
      "UINT64");
}

}  // namespace dsanalyze
