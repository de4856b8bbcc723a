#include "comm/oversubscription.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

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

Result<WaitPolicy> WaitPolicyFromEnv() {
  const char* value = std::getenv("DSANALYZE_WAIT");
  const std::string v = value == nullptr ? "auto" : value;
  if (v == "auto") return WaitPolicy::kAuto;
  if (v == "yield") return WaitPolicy::kYield;
  if (v == "spin") return WaitPolicy::kSpin;
  return Status::BadInput("DSANALYZE_WAIT: '" + v + "' is not auto, yield or spin");
}

bool HandleOversubscription(const Comm& world, bool print, WaitPolicy policy,
                            OversubscriptionWarning* warning) {
  MPI_Comm node;
  MPI_Comm_split_type(world.raw(), MPI_COMM_TYPE_SHARED, world.rank(), MPI_INFO_NULL, &node);
  int node_rank = 0, node_size = 1;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_size(node, &node_size);
  const std::vector<uint64_t> mine = CpuMask();
  std::vector<uint64_t> all(kMaskWords);
  MPI_Allreduce(mine.data(), all.data(), kMaskWords, MPI_UINT64_T, MPI_BOR, node);
  MPI_Comm_free(&node);
  const int cpus = CountCpus(all);
  const bool over = node_size > cpus;
  SetYieldWhileWaiting(policy == WaitPolicy::kAuto ? over : policy == WaitPolicy::kYield);
  if (!over || node_rank != 0) return over;
  char host[256] = "?";
  gethostname(host, sizeof(host) - 1);
  const OversubscriptionWarning said{
      std::to_string(node_size) + " ranks on a " + std::to_string(cpus) + "-core node (host " +
          host +
          "); expect slow runs: waiting ranks yield the CPU but still compete with working "
          "ones",
      "use at most one rank per core"};
  if (print)
    std::fprintf(stderr, "dsanalyze: warning: %s (%s)\n", said.message.c_str(), said.fix.c_str());
  if (warning != nullptr) *warning = said;
  return over;
}

}  // namespace dsanalyze
