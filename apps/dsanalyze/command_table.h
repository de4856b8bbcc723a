// The subcommands of dsanalyze, one table entry each. A new command is one
// entry in command_table.cc (its name, its options on the command line) and
// its function in lib/cli/ (cli/commands.h); main.cpp loops over the table.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace dsanalyze {

// What a command may need besides its own options, once the line is parsed.
struct Invocation {
  int argc = 0;
  char** argv = nullptr;                 // for MPI_Init (run)
  const CLI::App* app = nullptr;         // the whole command line
  const cli::RunOptions* top = nullptr;  // options given before the subcommand
};

// A subcommand as registered: it owns the options CLI11 fills in when it
// parses the line, and runs the command on them, returning the process exit
// code.
using RegisteredCommand = std::function<int(const Invocation& invocation)>;

// One subcommand. `add` registers it and its options on `app`; call what it
// returns once the line is parsed and names the subcommand.
struct Command {
  std::string name;
  std::function<RegisteredCommand(CLI::App& app)> add;
  // The top-level options (AddRunOptions) the command reads when they come
  // before its name, as `dsanalyze --timings merge`.
  std::vector<std::string> top_options;
};

// Every subcommand, in the order `dsanalyze --help` lists them.
std::span<const Command> Commands();

// Throws CLI::ValidationError for a top-level option given before `command`
// that it does not read there (`dsanalyze --timings verify`), which would
// otherwise be silently ignored.
void CheckTopOptions(const CLI::App& app, const Command& command);

// The options of a run; on the top level (`dsanalyze --config FILE`, the
// default command) --config is optional, on `dsanalyze run` it is required.
void AddRunOptions(CLI::App& app, cli::RunOptions& o, bool config_required);

}  // namespace dsanalyze
