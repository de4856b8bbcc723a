// Job-wide map progress, shown by rank 0.
//
// WaitForMap() is collective: every rank's calling thread waits for its own
// MapJob, waking every `interval` to add its count to one Allreduce, so rank 0
// learns the whole job's progress; the loop ends on the round in which every
// rank is done, so all ranks make the same number of calls. Workers are never
// interrupted: they only bump an atomic counter per batch.
//
// Rank 0 redraws one line in place when stderr is a terminal, and otherwise
// logs a line every `log_every` (batch jobs and CI logs). Nothing is shown for
// maps that finish within the first interval.
#pragma once

#include <chrono>
#include <cstdint>

#include "comm/comm.h"
#include "pipeline/map.h"

namespace dsanalyze {

struct ProgressOptions {
  bool show = true;
  std::chrono::milliseconds interval{250};
  std::chrono::milliseconds log_every{10000};
};

void WaitForMap(const Comm& comm, MapJob& job, uint64_t total_samples,
                const ProgressOptions& options);

}  // namespace dsanalyze
