// The memory plan: how a run keeps each rank under the config's memory limit
// (config "memory": limit_per_rank, scratch).
//
// Without a limit, or when the in-memory pipeline fits it, the plan is "in
// memory": the run is exactly the run without a limit. Otherwise it is
// "out of core": the map runs in windows of `window` samples, each single-value
// metric's values go to a ValueStore (value_store.h) that keeps up to
// `store_bytes` in memory and spills the rest to the scratch directory, and
// each metric is sorted out of core (out_of_core_sort.h) in passes of at
// most `pass_keys` keys per rank. Every rank computes the same plan.
#pragma once

#include <cstdint>
#include <string>

#include "config/config.h"

namespace dsanalyze {

struct MemoryPlan {
  uint64_t limit = 0;  // bytes per rank; 0: no limit
  std::string scratch;
  bool spill = false;
  // With spill:
  uint64_t window = 0;       // samples mapped at once
  uint64_t store_bytes = 0;  // each metric's ValueStore: bytes kept in memory
  uint64_t pass_keys = 0;    // keys per rank per sort pass
  // The in-memory pipeline's estimated peak per rank (bytes; UINT64_MAX past
  // 2^64): base_bytes plus sample_bytes per sample of the largest rank.
  uint64_t in_memory_estimate = 0;
  uint64_t local_samples = 0;  // the largest rank's samples, which it is for
  uint64_t sample_bytes = 0;   // 8 per single-value metric mapped, 16 for the sort
  uint64_t base_bytes = 0;     // the process itself

  // "out of core", not "spilled": under that plan a store spills only what
  // does not fit its memory, which may be nothing (summary.json then says
  // 0 bytes spilled).
  const char* name() const { return spill ? "out of core" : "in memory"; }
};

// The plan for ranks of at most `local_samples` samples each and
// `single_metrics` single-value metrics that are mapped (the ones whose files
// are written).
MemoryPlan PlanMemory(const MemoryConfig& config, uint64_t local_samples, size_t single_metrics);

}  // namespace dsanalyze
