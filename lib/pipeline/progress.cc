#include "pipeline/progress.h"

#include <vector>

namespace dsanalyze {

uint64_t WaitForMap(const Comm& comm, MapJob& job, Progress* progress,
                    std::chrono::milliseconds interval, uint64_t done_before) {
  for (;;) {
    job.WaitFor(interval);
    const uint64_t local[2] = {job.samples_done(), job.Done() ? 1u : 0u};
    const std::vector<uint64_t> global = comm.Allreduce<uint64_t>(local, MPI_SUM);
    progress->Set(done_before + global[0]);
    if (global[1] == static_cast<uint64_t>(comm.size())) return global[0];
  }
}

}  // namespace dsanalyze
