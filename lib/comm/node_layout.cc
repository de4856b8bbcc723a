#include "comm/node_layout.h"

#include <sched.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <thread>
#include <vector>

#include "comm/comm.h"

namespace dsanalyze {
namespace {

constexpr int kMaskWords = CPU_SETSIZE / 64;

// The CPUs this process may run on, one bit each; every hardware thread when
// the affinity cannot be read.
std::vector<uint64_t> CpuMask() {
  std::vector<uint64_t> words(kMaskWords, 0);
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    const unsigned n = std::min<unsigned>(std::thread::hardware_concurrency(), CPU_SETSIZE);
    for (unsigned c = 0; c < std::max(n, 1u); ++c) CPU_SET(c, &set);
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) words[c / 64] |= uint64_t{1} << (c % 64);
  return words;
}

int CountCpus(const std::vector<uint64_t>& mask) {
  int n = 0;
  for (uint64_t w : mask) n += std::popcount(w);
  return std::max(n, 1);
}

}  // namespace

NodeLayout MeasureNodeLayout(MPI_Comm comm) {
  // The ranks arrive here as they leave MPI_Init, some late; they wait for
  // each other in a barrier that yields, not in the split's busy-polling
  // (on 3 ranks over 2 cores the split held 38% of a tiny run's CPU time).
  MPI_Request arrived;
  MPI_Ibarrier(comm, &arrived);
  WaitYielding(&arrived);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  NodeLayout layout;
  MPI_Comm_rank(node, &layout.node_rank);
  MPI_Comm_size(node, &layout.node_size);
  const std::vector<uint64_t> mine = CpuMask();
  std::vector<uint64_t> all(kMaskWords);
  MPI_Allreduce(mine.data(), all.data(), kMaskWords, MPI_UINT64_T, MPI_BOR, node);
  MPI_Comm_free(&node);
  layout.node_cpus = CountCpus(all);
  const int leader = layout.node_rank == 0 ? 1 : 0;  // one leader per node
  MPI_Allreduce(&leader, &layout.nodes, 1, MPI_INT, MPI_SUM, comm);
  return layout;
}

}  // namespace dsanalyze
