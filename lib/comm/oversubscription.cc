#include "comm/oversubscription.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace dsanalyze {

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
  const int node_rank = world.node().node_rank, node_size = world.node().node_size;
  const int cpus = world.node().node_cpus;
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
