// The map stage's progress under MPI: rank 0 learns the whole job's count
// and shows it through util/progress.h.
#pragma once

#include <chrono>
#include <cstdint>

#include "comm/comm.h"
#include "pipeline/map.h"
#include "util/progress.h"

namespace dsanalyze {

// Collective: every rank's calling thread waits for its own MapJob, waking
// every `interval` to add its count to one Allreduce, so rank 0 learns the
// whole job's count and passes it to `progress`. The loop ends on the round
// in which every rank is done, so all ranks make the same number of calls.
// Workers are never interrupted: they only bump an atomic counter per batch.
// `done_before` (the job-wide samples mapped by earlier jobs: a run under a
// memory limit maps in windows) is added to the count shown. Returns the
// job-wide count of samples this job mapped.
uint64_t WaitForMap(const Comm& comm, MapJob& job, Progress* progress,
                    std::chrono::milliseconds interval, uint64_t done_before = 0);

}  // namespace dsanalyze
