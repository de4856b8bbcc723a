#include "cli/command_output.h"

#include <algorithm>
#include <cstdio>
#include <exception>

#include "comm/comm.h"
#include "util/exception_status.h"
#include "util/terminal.h"

namespace dsanalyze::cli {
namespace {

// `label`, padded with spaces to `width`.
std::string Padded(const std::string& label, int width) {
  const size_t w = static_cast<size_t>(std::max(width, 0));
  return label.size() < w ? label + std::string(w - label.size(), ' ') : label;
}

// A row's seconds, or a header's column names (`time` unset).
std::string Columns(const TimingTable& table, const std::optional<StageTime>& time) {
  char line[64];
  if (table.one_process && time)
    std::snprintf(line, sizeof(line), " %9.3f\n", time->rank0);
  else if (table.one_process)
    std::snprintf(line, sizeof(line), " %9s\n", "seconds");
  else if (time)
    std::snprintf(line, sizeof(line), " %8.3f  %9.3f\n", time->rank0, time->slowest);
  else
    std::snprintf(line, sizeof(line), " %8s  %9s\n", "rank0 s", "slowest s");
  return line;
}

}  // namespace

std::string FailureLine(const Status& st) {
  const bool interrupted = st.code() == Status::Code::kInterrupted;
  return std::string("dsanalyze: ") + (interrupted ? "" : "error: ") + st.message() + "\n";
}

int ReportEscapedException(const std::exception_ptr& e, const std::string& command) {
  return ReportFailure(StatusOfException(e, command));
}

void InstallTerminateHandler() {
  std::set_terminate([] {
    const std::exception_ptr e = std::current_exception();
    const Status st = e ? StatusOfException(e, "std::terminate")
                        : Status::Internal("std::terminate called without an exception");
    std::fputs(FailureLine(st).c_str(), stderr);
    AbortJob(st.exit_code());
  });
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

std::string FormatTimings(const TimingTable& table) {
  std::string text = Padded("stage", table.width) + Columns(table, std::nullopt);
  for (const TimingTable::Row& row : table.rows)
    text += row.time ? Padded(row.label, table.width) + Columns(table, row.time) : row.label + "\n";
  // RSS counts memory-mapped input pages; anonymous memory is what a job needs.
  char line[160];
  for (size_t r = 0; r < table.peak_rss_bytes.size(); ++r) {
    const double rss = static_cast<double>(table.peak_rss_bytes[r]) / (1 << 20);
    const double anon = static_cast<double>(table.peak_anon_bytes[r]) / (1 << 20);
    if (table.one_process)
      std::snprintf(line, sizeof(line), "peak RSS: %.1f MiB (anonymous %.1f MiB)\n", rss, anon);
    else
      std::snprintf(line, sizeof(line), "peak RSS rank %zu: %.1f MiB (anonymous %.1f MiB)\n", r,
                    rss, anon);
    text += line;
  }
  return text;
}

}  // namespace dsanalyze::cli
