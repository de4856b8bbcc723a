#include "cli/command_output.h"

#include <cstdio>

#include "util/terminal.h"

namespace dsanalyze::cli {

std::string FailureLine(const Status& st) {
  const bool interrupted = st.code() == Status::Code::kInterrupted;
  return std::string("dsanalyze: ") + (interrupted ? "" : "error: ") + st.message() + "\n";
}

int ReportFailure(const Status& st) {
  std::fputs(FailureLine(st).c_str(), stderr);
  return st.exit_code();
}

ProgressOptions ProgressFor(const ProgressRequest& request) {
  ProgressOptions p;
  p.mode = request.progress == "always"                   ? ProgressMode::kAlways
           : request.progress == "never" || request.quiet ? ProgressMode::kNever
                                                          : ProgressMode::kAuto;
  p.live = request.shown && p.mode != ProgressMode::kNever && StderrReachesTerminal();
  return p;
}

}  // namespace dsanalyze::cli
