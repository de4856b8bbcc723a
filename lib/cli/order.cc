// `dsanalyze order`: writes the training order (curriculum/training_order.h)
// and says what it wrote in one line; errors are one line, exit 2 or 3.
#include <cstdio>
#include <string>

#include "cli/command_output.h"
#include "cli/commands.h"
#include "output/save_lock.h"
#include "util/interrupt.h"

namespace dsanalyze::cli {

int Order(const OrderOptions& options) {
  InstallInterruptHandlers();
  const bool core = !options.megatron_core_cache.empty();
  if (options.out.empty() && !core)
    return ReportFailure(
        Status::BadInput("order: give --out FILE.npy or --megatron-core-cache OUT_DIR"));
  const Result<std::vector<SaveLock>> reading = LockForReading({options.analysis});
  if (!reading.ok()) return ReportFailure(reading.status());
  Result<uint64_t> samples = core ? WriteCoreCacheOrder(options) : WriteTrainingOrder(options);
  if (!samples.ok()) return ReportFailure(samples.status());
  if (CaughtSignal() != 0)  // after the last checkpoint: the output was committed
    std::fprintf(stderr, "dsanalyze: warning: %s\n", CommittedDespite(CaughtSignal()).c_str());
  std::string how = options.descending ? "hard to easy" : "easy to hard";
  if (options.buckets > 0)
    how += ", " + std::to_string(options.buckets) + " buckets shuffled with seed " +
           std::to_string(options.seed);
  if (!options.out.empty())
    std::printf("order: wrote %s: %llu sample ids, %s\n", options.out.c_str(),
                static_cast<unsigned long long>(*samples), how.c_str());
  if (core)
    std::printf(
        "order: wrote %s: Megatron-Core's cache with dataset[i] the order's sample i (%llu "
        "samples, %s); train with --data-cache-path %s, nothing else changed\n",
        options.megatron_core_cache.c_str(), static_cast<unsigned long long>(*samples), how.c_str(),
        options.megatron_core_cache.c_str());
  return kExitOk;
}

}  // namespace dsanalyze::cli
