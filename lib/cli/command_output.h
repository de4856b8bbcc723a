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

// What a command's progress display is made of.
struct ProgressRequest {
  std::string progress = "auto";  // --progress auto|always|never
  bool quiet = false;             // --quiet: silences auto
  bool shown = false;             // this process shows the display (rank 0)
};

// The display the request asks for. Only a shown display looks for the terminal.
ProgressOptions ProgressFor(const ProgressRequest& request);

}  // namespace dsanalyze::cli
