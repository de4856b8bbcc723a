// What the run and merge show alike: the last line of a command that failed
// or was interrupted, what --progress and --quiet make of the progress
// display (util/progress.h), and the --timings table.
#pragma once

#include <cstdint>
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
