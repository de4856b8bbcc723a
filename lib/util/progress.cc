#include "util/progress.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

#include "util/worker_thread.h"

namespace dsanalyze {
namespace {

std::string FormatCount(double n) {
  char buf[32];
  if (n >= 1e9)
    std::snprintf(buf, sizeof(buf), "%.2fG", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(buf, sizeof(buf), "%.2fM", n / 1e6);
  else if (n >= 1e3)
    std::snprintf(buf, sizeof(buf), "%.1fk", n / 1e3);
  else
    std::snprintf(buf, sizeof(buf), "%.0f", n);
  return buf;
}

// Clears a live progress line before each log message (progress.h).
class ClearBeforeLog : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit ClearBeforeLog(Progress* progress) : progress_(progress) {}

 protected:
  void sink_it_(const spdlog::details::log_msg&) override { progress_->ClearLine(); }
  void flush_() override {}

 private:
  Progress* progress_;
};

}  // namespace

Progress::Progress(const ProgressOptions& options, bool root)
    : options_(options), shown_(root && options.mode != ProgressMode::kNever) {
  if (!shown_) return;
  drawer_ = StartWorkerThread([this] { Draw(); });
  if (options_.live) {
    clear_before_log_ = std::make_shared<ClearBeforeLog>(this);
    auto& sinks = spdlog::default_logger()->sinks();
    sinks.insert(sinks.begin(), clear_before_log_);
  }
}

void Progress::ClearLine() {
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

Progress::~Progress() {
  if (!shown_) return;
  if (clear_before_log_) {
    auto& sinks = spdlog::default_logger()->sinks();
    sinks.erase(std::remove(sinks.begin(), sinks.end(), clear_before_log_), sinks.end());
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  drawer_.JoinDiscardingException();
  // A stage still open here was cut short by an error: no line for it.
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::Begin(const std::string& name, uint64_t total, const char* unit) {
  if (!shown_) return;
  End();
  std::lock_guard<std::mutex> lock(mu_);
  stage_ = name;
  total_ = total;
  unit_ = unit;
  done_.store(0, std::memory_order_relaxed);
  begin_ = last_log_ = Clock::now();
  // Drawn at once, so that even a stage shorter than `interval` is seen.
  if (options_.live) Print(Line(begin_));
}

void Progress::End() {
  if (!shown_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (!stage_.empty() && options_.mode == ProgressMode::kAlways && !options_.live)
    Print(Line(Clock::now()));
  stage_.clear();
}

void Progress::Draw() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, options_.interval);
    if (stop_ || stage_.empty()) continue;
    const auto now = Clock::now();
    if (options_.live) {
      Print(Line(now));
    } else if (now - last_log_ >= options_.log_every) {
      Print(Line(now));
      last_log_ = now;
    }
  }
}

std::string Progress::Line(Clock::time_point now) const {
  const double seconds = std::chrono::duration<double>(now - begin_).count();
  std::string line = stage_;
  char buf[160];
  if (total_ > 0) {
    const uint64_t done = std::min(done_.load(std::memory_order_relaxed), total_);
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    std::snprintf(buf, sizeof(buf), "  %5.1f%%  %s/%s %s  %s %s/s",
                  100.0 * static_cast<double>(done) / static_cast<double>(total_),
                  FormatCount(static_cast<double>(done)).c_str(),
                  FormatCount(static_cast<double>(total_)).c_str(), unit_,
                  FormatCount(rate).c_str(), unit_);
    line += buf;
    if (done < total_ && rate > 0) {
      std::snprintf(buf, sizeof(buf), "  ETA %.1f s", static_cast<double>(total_ - done) / rate);
      line += buf;
    }
  }
  std::snprintf(buf, sizeof(buf), "  %.2f s", seconds);
  return line + buf;
}

void Progress::Print(const std::string& line) {
  // One fputs per line: stderr is unbuffered, so a line is one write.
  if (options_.live) {
    std::fputs(("\r" + line + "\033[K").c_str(), stderr);
    drawn_ = true;
  } else {
    std::fputs(("[progress] " + line + "\n").c_str(), stderr);
  }
}

}  // namespace dsanalyze
