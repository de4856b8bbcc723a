// StageClock: the wall time of an analysis's stages, for --timings and
// summary.json's "timings", as StageTimes.
//
// A stage is known by its name; the clock lists its stages in the order
// given at construction, then in the order first named. A run gives its fixed
// list (pipeline/run_stages.h), whose stages add up over the metrics; a merge
// (merge/merge.h) names its stages as they come, one per metric.
//
// Time runs from a mark: the construction, or the last Lap, Begin, End or
// Restart. A stage is timed in one of two ways:
//  - Lap(stage) at its end: the time since the mark is `stage`'s;
//  - Begin(name) at its start, for stages one after another: the stage under
//    way, if any, is lapped, and `name` is under way until the next Begin or
//    End (with none under way, the time since the mark counts toward `name`).
// Every mark samples the process's anonymous memory (util/memory_usage.h:
// Linux keeps no peak of it).
//
// Not thread-safe: one thread marks the stages.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dsanalyze {

// Wall seconds of one stage, on rank 0 and on the slowest rank (one process:
// the same): the run's and merge's --timings (pipeline/pipeline.h,
// merge/merge.h) and summary.json's "timings" (rank0_seconds, max_seconds).
struct StageTime {
  std::string stage;
  double rank0 = 0;
  double slowest = 0;
};

class StageClock {
 public:
  // `stages`: the stages known from the start, listed first, in this order.
  explicit StageClock(std::span<const char* const> stages = {});

  // Adds the time since the mark to `stage` (an index into stages()).
  void Lap(size_t stage);
  // Laps the stage under way, if any, and puts stage `name` under way,
  // listing it last if it is new.
  void Begin(std::string_view name);
  // Laps the stage under way, if any; none is under way after it.
  void End();
  // Adds time measured elsewhere (the sample sort's phases) to `stage`.
  void Add(size_t stage, double seconds);
  // Marks now without attributing the time since the last mark.
  void Restart();

  // Seconds since the construction.
  double Elapsed() const;
  const std::vector<std::string>& stages() const { return stages_; }
  // Per stage, as stages() lists them.
  const std::vector<double>& seconds() const { return seconds_; }
  // The most anonymous memory sampled at a mark.
  int64_t peak_anon_bytes() const { return peak_anon_bytes_; }
  // Each stage's seconds on this process and, per stage, on the slowest
  // rank (empty: this process is the slowest, as a merge's one process is).
  std::vector<StageTime> Times(std::span<const double> slowest = {}) const;

 private:
  using Clock = std::chrono::steady_clock;
  size_t IndexOf(std::string_view name);  // listed last if new
  void SampleMemory();

  std::vector<std::string> stages_;
  std::vector<double> seconds_;
  std::optional<size_t> under_way_;
  Clock::time_point start_ = Clock::now(), mark_ = start_;
  int64_t peak_anon_bytes_ = 0;
};

}  // namespace dsanalyze
