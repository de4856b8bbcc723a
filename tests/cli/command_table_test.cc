// The command table (apps/dsanalyze/command_table.h) against the real binary:
// every entry is listed by `dsanalyze --help` and reachable as a subcommand.
#include "command_table.h"

#include <catch2/catch.hpp>
#include <string>

#include "support/test_util.h"

namespace dsanalyze {
namespace {

// Runs dsanalyze with `args`, its stderr merged into its stdout.
test::CommandResult RunMerged(const std::string& args) {
  return test::RunCommand("'" + test::BinaryPath() + "' " + args + " 2>&1");
}

TEST_CASE("cli: every command in the table is in --help and runs its own --help",
          "[cli][commands]") {
  const test::CommandResult help = RunMerged("--help");
  REQUIRE(help.exit_code == 0);
  REQUIRE(Commands().size() >= 10);
  for (const Command& command : Commands()) {
    INFO(command.name);
    // The "Subcommands:" list: the name at the start of a line, then its description.
    CHECK(help.output.find("\n  " + command.name + " ") != std::string::npos);
    const test::CommandResult own = RunMerged(command.name + " --help");
    INFO(own.output);
    CHECK(own.exit_code == 0);
    CHECK(own.output.find("dsanalyze " + command.name + " [OPTIONS]") != std::string::npos);
  }
}

}  // namespace
}  // namespace dsanalyze
