#include "pipeline/progress.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace dsanalyze {
namespace {

using Clock = std::chrono::steady_clock;

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

std::string ProgressLine(uint64_t done, uint64_t total, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  const double eta = rate > 0 ? static_cast<double>(total - done) / rate : 0;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "map %5.1f%%  %s/%s samples  %s samples/s  ETA %.1f s",
                total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
                FormatCount(static_cast<double>(done)).c_str(),
                FormatCount(static_cast<double>(total)).c_str(), FormatCount(rate).c_str(), eta);
  return buf;
}

}  // namespace

void WaitForMap(const Comm& comm, MapJob& job, uint64_t total_samples,
                const ProgressOptions& options) {
  const bool terminal = comm.is_root() && isatty(STDERR_FILENO);
  const auto start = Clock::now();
  auto last_log = start;
  bool drawn = false;
  for (;;) {
    job.WaitFor(options.interval);
    const uint64_t local[2] = {job.samples_done(), job.Done() ? 1u : 0u};
    const std::vector<uint64_t> global = comm.Allreduce<uint64_t>(local, MPI_SUM);
    if (global[1] == static_cast<uint64_t>(comm.size())) break;
    if (!comm.is_root() || !options.show) continue;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - start).count();
    if (terminal) {
      std::fprintf(stderr, "\r%s\033[K", ProgressLine(global[0], total_samples, seconds).c_str());
      drawn = true;
    } else if (now - last_log >= options.log_every) {
      spdlog::info("{}", ProgressLine(global[0], total_samples, seconds));
      last_log = now;
    }
  }
  if (drawn) std::fprintf(stderr, "\r\033[K");
}

}  // namespace dsanalyze
