// What the run and merge show alike: the last line of a command that failed
// or was interrupted, and what --progress and --quiet make of the progress
// display (util/progress.h).
#pragma once

#include <string>

#include "util/progress.h"
#include "util/status.h"

namespace dsanalyze::cli {

// "dsanalyze: error: MESSAGE\n", or for an interrupted command (util/
// interrupt.h) "dsanalyze: MESSAGE\n" ("interrupted by SIGINT during map;
// nothing was committed"): an interruption is not an error.
std::string FailureLine(const Status& st);

// Prints FailureLine(st) on stderr and returns st's exit code (util/status.h:
// 2 bad input, 3 I/O or internal, 128 + signal interrupted): how every command
// ends on a failed Status.
int ReportFailure(const Status& st);

// --progress auto|always|never, with --quiet silencing auto. Only `shown`
// (rank 0) looks for the terminal.
ProgressOptions ProgressFor(const std::string& progress, bool quiet, bool shown);

}  // namespace dsanalyze::cli
