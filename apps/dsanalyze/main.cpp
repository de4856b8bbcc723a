// dsanalyze: curriculum-learning data analysis for DeepSpeed, under MPI.
// This file only parses the command line; the subcommands are in
// command_table.h, the work in lib/ (cli/commands.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/command_output.h"
#include "comm/comm.h"
#include "comm/launch_guard.h"
#include "command_table.h"
#include "parse_error.h"
#include "util/status.h"

namespace {

// Prints what a command line CLI11 refused asks for (the error line, or
// --help, --version) and returns the exit code.
int PrintParseError(const CLI::App& app, const CLI::ParseError& e) {
  if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
  return dsanalyze::cli::ReportFailure(
      dsanalyze::Status::BadInput(dsanalyze::ParseErrorLine(app, e)));
}

// The exit code for a refused command line. Under mpiexec or srun every rank
// parses the same command line and only the launcher's rank 0 prints. The
// ranks still pass through MPI_Init and MPI_Finalize: when a job's processes
// all end before MPI_Init, MPICH's mpiexec can die of SIGPIPE and exit 141
// with nothing printed (`mpiexec -n 3 false`: once in 300 runs on a loaded
// machine; with MPI_Init and MPI_Finalize, none in 300).
int ParseErrorExit(int* argc, char*** argv, const CLI::App& app, const CLI::ParseError& e) {
  const std::optional<int> rank = dsanalyze::LauncherRank();
  if (!rank) return PrintParseError(app, e);
  dsanalyze::MpiEnvironment env(argc, argv);
  const int code = *rank == 0 ? PrintParseError(app, e)
                              : (e.get_exit_code() == 0 ? 0 : dsanalyze::kExitBadInput);
  const dsanalyze::Comm world;
  if (dsanalyze::FinalizeMayHang(world)) dsanalyze::ExitWithoutFinalize(world, code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  namespace cli = dsanalyze::cli;
  cli::InstallTerminateHandler();
  CLI::App app{
      "dsanalyze: per-sample difficulty metrics and curriculum indexes for DeepSpeed.\n"
      "Run the analysis with: mpirun -n N dsanalyze --config run.json"};
  app.set_version_flag("--version", std::string("dsanalyze ") + DSANALYZE_VERSION);
  app.require_subcommand(0, 1);

  cli::RunOptions top_run;
  dsanalyze::AddRunOptions(app, top_run, false);
  const std::span<const dsanalyze::Command> commands = dsanalyze::Commands();
  std::vector<dsanalyze::RegisteredCommand> registered;
  for (const dsanalyze::Command& command : commands) registered.push_back(command.add(app));
  dsanalyze::CheckIntegerOptions(app);

  try {
    app.parse(argc, argv);
    for (const dsanalyze::Command& command : commands)
      if (app.got_subcommand(command.name)) dsanalyze::CheckTopOptions(app, command);
  } catch (const CLI::ParseError& e) {
    return ParseErrorExit(&argc, &argv, app, e);
  }

  const dsanalyze::Invocation invocation{.argc = argc, .argv = argv, .app = &app, .top = &top_run};
  std::string name = "run";  // for the last resort's line
  for (const dsanalyze::Command& command : commands)
    if (app.got_subcommand(command.name)) name = command.name;
  try {
    for (size_t i = 0; i < commands.size(); ++i)
      if (app.got_subcommand(commands[i].name)) return registered[i](invocation);
    if (!top_run.config_path.empty()) return cli::Run(top_run, argc, argv);
  } catch (...) {  // the last resort (cli/command_output.h)
    return cli::ReportEscapedException(std::current_exception(), name);
  }
  std::fputs(app.help().c_str(), stderr);
  return dsanalyze::kExitBadInput;
}
