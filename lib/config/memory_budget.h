// The memory budget of one rank, and the one check that every count taken
// from a config or an input file passes before it sizes an allocation.
//
// A count that a config or a file gives (dataset.num_samples, a blend's
// size, a vocabulary size times the map threads, the tokens of one sample)
// can ask for more memory than a machine has: allocating it would throw
// std::bad_alloc (or std::length_error) deep inside the run, on one rank,
// at any stage. Instead, the code that sizes such an allocation first calls
// CheckMemoryNeed, which refuses the input with one line naming the config key,
// the size and the memory it needs (exit 2, before the work, or at the
// sample that needs it). The budget is memory.limit_per_rank when the run
// has one (SetMemoryLimitPerRank; process-wide, set once at run start),
// else what the kernel says this process can still allocate
// (util/memory_usage.h AvailableMemoryNow: free memory, cgroup limit,
// `ulimit -v`). docs/reliability.md, "Memory and internal errors", lists the
// checks.
//
// Thread-safe: the limit is an atomic; CheckMemoryNeed reads a few /proc
// files, so callers check when a buffer grows, not per item.
#pragma once

#include <cstdint>
#include <string>

#include "util/status.h"

namespace dsanalyze {

// The run's memory.limit_per_rank (0: none); the budget from then on.
void SetMemoryLimitPerRank(uint64_t bytes);

// a · b, or UINT64_MAX when that overflows (a size that cannot be allocated).
uint64_t SaturatingProduct(uint64_t a, uint64_t b);

// What an allocation needs, for CheckMemoryNeed's message.
struct MemoryNeed {
  std::string key;     // the config key whose value sizes it: "config: dataset.num_samples"
  std::string what;    // how the bytes come about: "a blend index of 2^40 samples at 10 bytes each"
  uint64_t bytes = 0;  // saturated: UINT64_MAX for "past 2^64"
  std::string fix = "";  // what to do instead, or empty
};

// OK when need.bytes fit the budget, else BadInput
// "<key>: <what> would take <bytes> of memory, more than the <budget> <of
// what>[; <fix>]", e.g. "config: dataset.size: a blend index of 1099511627776
// samples at 10 bytes each would take 10TiB of memory, more than the 7.6GiB
// this rank can allocate (MemAvailable + SwapFree)".
Status CheckMemoryNeed(const MemoryNeed& need);

}  // namespace dsanalyze
