#include "util/stage_clock.h"

#include <algorithm>

#include "util/memory_usage.h"

namespace dsanalyze {

StageClock::StageClock(std::span<const char* const> stages)
    : stages_(stages.begin(), stages.end()), seconds_(stages.size(), 0.0) {}

void StageClock::Lap(size_t stage) {
  const Clock::time_point now = Clock::now();
  seconds_[stage] += std::chrono::duration<double>(now - mark_).count();
  mark_ = now;
  SampleMemory();
}

void StageClock::Begin(std::string_view name) {
  End();
  under_way_ = IndexOf(name);
}

void StageClock::End() {
  if (under_way_) Lap(*under_way_);
  under_way_.reset();
}

void StageClock::Add(size_t stage, double seconds) { seconds_[stage] += seconds; }

void StageClock::Restart() {
  mark_ = Clock::now();
  SampleMemory();
}

double StageClock::Elapsed() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

std::vector<StageTime> StageClock::Times(std::span<const double> slowest) const {
  std::vector<StageTime> times;
  for (size_t s = 0; s < stages_.size(); ++s)
    times.push_back({stages_[s], seconds_[s], slowest.empty() ? seconds_[s] : slowest[s]});
  return times;
}

size_t StageClock::IndexOf(std::string_view name) {
  const auto found = std::find(stages_.begin(), stages_.end(), name);
  if (found != stages_.end()) return static_cast<size_t>(found - stages_.begin());
  stages_.emplace_back(name);
  seconds_.push_back(0.0);
  return stages_.size() - 1;
}

void StageClock::SampleMemory() { peak_anon_bytes_ = std::max(peak_anon_bytes_, AnonRssBytes()); }

}  // namespace dsanalyze
