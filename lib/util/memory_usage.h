// This process's memory, as the run reports it per rank (summary.json,
// --timings).
//
// The peak resident set counts every page the process touched, including
// pages of memory-mapped input files: a 2 GB corpus listed three times shows
// as gigabytes of RSS per rank although the kernel can drop those pages at
// will. Anonymous memory (heap, stacks, anonymous mappings) is what a job
// must really have, so it is reported apart. Linux keeps no peak of it;
// callers sample AnonRssBytes at points of interest and keep the maximum.
#pragma once

#include <cstdint>

namespace dsanalyze {

// Peak resident set size (getrusage ru_maxrss): anonymous and file pages.
int64_t PeakRssBytes();

// Resident anonymous memory now ("RssAnon" in /proc/self/status); 0 where
// the kernel does not report it. Reads one small file: cheap, but not for
// inner loops.
int64_t AnonRssBytes();

}  // namespace dsanalyze
