// This process's memory, as the run reports it per rank (summary.json,
// --timings), and what it can still allocate (the budget of
// config/memory_budget.h).
//
// The peak resident set counts every page the process touched, including
// pages of memory-mapped input files: a 2 GB corpus listed three times shows
// as gigabytes of RSS per rank although the kernel can drop those pages at
// will. Anonymous memory (heap, stacks, anonymous mappings) is what a job
// must really have, so it is reported apart. Linux keeps no peak of it;
// callers sample AnonRssBytes at points of interest and keep the maximum.
#pragma once

#include <cstdint>
#include <string>

namespace dsanalyze {

// Peak resident set size (getrusage ru_maxrss): anonymous and file pages.
int64_t PeakRssBytes();

// Resident anonymous memory now ("RssAnon" in /proc/self/status); 0 where
// the kernel does not report it. Reads one small file: cheap, but not for
// inner loops.
int64_t AnonRssBytes();

// What this process can still allocate, as the kernel tells it: the least of
// - the machine's available memory, MemAvailable + SwapFree (under strict
//   overcommit, vm.overcommit_memory 2: CommitLimit - Committed_AS);
// - its cgroup's memory.max less memory.current (cgroup v2), at each level up
//   to the root: the limit of a container or of a Slurm job step;
// - its address-space limit (RLIMIT_AS, `ulimit -v`) less its VmSize.
// Reads a few small files of /proc and /sys: not for inner loops.
struct AvailableMemory {
  uint64_t bytes = UINT64_MAX;  // UINT64_MAX when the kernel says nothing
  std::string bound;            // which one bounds it: "MemAvailable + SwapFree", ...
};
AvailableMemory AvailableMemoryNow();

}  // namespace dsanalyze
