#include "pipeline/memory_plan.h"

#include <algorithm>

#include "config/memory_budget.h"

namespace dsanalyze {
namespace {

// Bytes a rank holds per sample in memory: 8 per single-value metric (the
// map's values, all held at once), then the sort's peak of one metric: keys
// and the radix scratch, or the sent and received keys, or the received keys
// and the merge buffer — 16 — plus 8 for the metric's values (consumed into
// the scratch, but counted: other metrics' values still wait).
constexpr uint64_t kSortBytesPerSample = 16;
constexpr uint64_t kValueBytes = 8;
// What the process holds besides: code, MPI's buffers, the writers' buffers.
constexpr uint64_t kBaseBytes = uint64_t{160} << 20;
constexpr uint64_t kMinWindow = uint64_t{1} << 16;

}  // namespace

MemoryPlan PlanMemory(const MemoryConfig& config, uint64_t local_samples, size_t single_metrics) {
  MemoryPlan plan;
  plan.limit = config.limit_per_rank;
  plan.scratch = ScratchDirOf(config);
  const uint64_t metrics = std::max<size_t>(1, single_metrics);
  plan.local_samples = local_samples;
  plan.sample_bytes = kValueBytes * metrics + kSortBytesPerSample;
  plan.base_bytes = kBaseBytes;
  const uint64_t samples_bytes = SaturatingProduct(local_samples, plan.sample_bytes);
  plan.in_memory_estimate =
      samples_bytes > UINT64_MAX - kBaseBytes ? UINT64_MAX : kBaseBytes + samples_bytes;
  if (plan.limit == 0 || single_metrics == 0 || plan.in_memory_estimate <= plan.limit) return plan;

  // Spilled: of the limit less the base, an eighth for the map's window, an
  // eighth for the stores' in-memory blocks, the rest for one sort pass.
  const uint64_t usable = plan.limit > 2 * kBaseBytes ? plan.limit - kBaseBytes : plan.limit / 2;
  plan.spill = true;
  plan.window = std::max(kMinWindow, usable / 8 / (kValueBytes * metrics));
  plan.store_bytes = usable / 8 / metrics;
  plan.pass_keys = std::max(kMinWindow, (usable - usable / 4) / kSortBytesPerSample);
  return plan;
}

}  // namespace dsanalyze
