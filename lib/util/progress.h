// Progress of a run or a merge, shown on stderr (`--progress auto|always|never`).
//
// Where stderr reaches a terminal (util/terminal.h: also under mpiexec, whose
// ranks write to pipes), auto and always keep ONE line redrawn in place with
// `\r`: the stage ("map", "seqlen: sort", ...), its count, rate and ETA when it
// has one, and the seconds spent in it. It is redrawn when a stage begins and
// every `interval`, and cleared when the run ends. Elsewhere (a pipe, a file,
// a batch log) there is no `\r`: always prints one plain line per finished
// stage, and both print a line every `log_every` while a stage runs longer.
// never shows nothing.
//
// A log line (spdlog) while a live line is on screen would be written onto
// it: a live Progress adds a sink to the default logger, before its others,
// that clears the live line first; the line is drawn again at the next
// interval, below the log line.
//
// Only rank 0 shows anything; on other ranks (and for never) every call does
// nothing. The pipeline's (or merge's) thread marks the stages; counts are set
// or added per interval or per chunk, never per item. A drawing thread on rank
// 0 wakes every `interval` and never calls MPI. The run's map waits for its
// progress in pipeline/progress.h (WaitForMap).
#pragma once

#include <spdlog/sinks/sink.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "util/worker_thread.h"

namespace dsanalyze {

enum class ProgressMode { kAuto, kAlways, kNever };

struct ProgressOptions {
  ProgressMode mode = ProgressMode::kAuto;
  bool live = false;  // stderr reaches a terminal: redraw one line
  std::chrono::milliseconds interval{250};
  std::chrono::milliseconds log_every{10000};
};

class Progress {
 public:
  Progress(const ProgressOptions& options, bool root);
  ~Progress();  // stops the drawing thread and clears the live line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Ends the current stage, if any, and starts `name` with `total` `unit`s to
  // do (total 0: only the time is shown).
  void Begin(const std::string& name, uint64_t total = 0, const char* unit = "");
  // Ends the current stage. A stage still open when the Progress is destroyed
  // (an error ended the run) gets no line.
  void End();
  // The current stage's units done. counter() may be added to from any thread
  // (gather_write.h WriteOptions::rows_done); nullptr when nothing is shown.
  void Set(uint64_t done) { done_.store(done, std::memory_order_relaxed); }
  // Clears the live line, if one is drawn, so that what is written next
  // starts a line of its own. Any thread.
  void ClearLine();
  std::atomic<uint64_t>* counter() { return shown_ ? &done_ : nullptr; }

 private:
  using Clock = std::chrono::steady_clock;
  void Draw();
  std::string Line(Clock::time_point now) const;  // mu_ held
  void Print(const std::string& line);            // mu_ held

  const ProgressOptions options_;
  const bool shown_;
  std::atomic<uint64_t> done_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;  // a live line is on screen
  std::string stage_;   // empty between stages
  uint64_t total_ = 0;
  const char* unit_ = "";
  Clock::time_point begin_, last_log_;
  WorkerThread drawer_;
  std::shared_ptr<spdlog::sinks::sink> clear_before_log_;  // live only
};

}  // namespace dsanalyze
