// What the run and merge show alike: the last line of a command that failed
// or was interrupted, what --progress and --quiet make of the progress
// display (util/progress.h), and the --timings table.
#pragma once

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "util/progress.h"
#include "util/stage_clock.h"
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

// The last resort of every command (apps/dsanalyze/main.cpp; a run's, under
// MPI, is in cli::Run): the one line for an exception that reached main
// after unwinding the command, so that its destructors ran (a merge's
// staging folder removed, its lock released). Prints
// "dsanalyze: error: <command>: internal error: <what>" (or "out of memory"
// for a failed allocation: util/exception_status.h) and returns exit code 3.
int ReportEscapedException(const std::exception_ptr& e, const std::string& command);

// Sets std::terminate's handler for the process: an exception where none
// may be thrown (out of a destructor or a noexcept function), which cannot
// unwind, ends the job with one line and exit code 3 (comm/comm.h AbortJob)
// instead of abort()'s core dump and MPICH's "BAD TERMINATION" banner.
// Nothing is cleaned up then: the next run on the save path removes what
// such a run leaves.
void InstallTerminateHandler();

// What a command's progress display is made of.
struct ProgressRequest {
  std::string progress = "auto";  // --progress auto|always|never
  bool quiet = false;             // --quiet: silences auto
  bool shown = false;             // this process shows the display (rank 0)
};

// The display the request asks for. Only a shown display looks for the terminal.
ProgressOptions ProgressFor(const ProgressRequest& request);

// What --timings shows (FormatTimings): stage times, then peak memory.
struct TimingTable {
  // A row without a time is a heading ("per metric").
  struct Row {
    std::string label;
    std::optional<StageTime> time;
  };
  std::vector<Row> rows;
  int width = 0;  // the timed rows' labels are padded to it
  // One process (merge): one column, "seconds" (StageTime::rank0), and its
  // memory without a rank; else rank 0's and the slowest rank's seconds.
  bool one_process = false;
  std::vector<int64_t> peak_rss_bytes;   // per rank
  std::vector<int64_t> peak_anon_bytes;  // per rank (util/memory_usage.h)
};

// The --timings table, one line per row after a header, e.g. of a run:
//   stage             rank0 s  slowest s
//   open                0.012      0.015
//   peak RSS rank 0: 52.1 MiB (anonymous 20.3 MiB)
// and of a merge (one process, width 24):
//   stage                      seconds
//   open                         0.004
//   peak RSS: 30.2 MiB (anonymous 12.0 MiB)
std::string FormatTimings(const TimingTable& table);

}  // namespace dsanalyze::cli
