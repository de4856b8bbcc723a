// Oversubscription: more ranks on a node than it has cores to run them.
//
// MPICH's waiting ranks busy-poll inside blocking calls, so an oversubscribed
// node spends its time spinning in ranks that wait for the ones with work; the
// splitter search (dozens of small Allreduces) suffers most. Debian's MPICH
// (ch4:ucx) has no setting to make it yield: MPIR_CVAR_POLLS_BEFORE_YIELD
// belongs to ch3:nemesis. So on an oversubscribed node Comm waits by testing
// and yielding instead (comm.h, SetYieldWhileWaiting), and the node's lowest
// rank prints one line:
//   dsanalyze: warning: R ranks on a C-core node (host H); expect slow runs: ...
// Cores are the CPUs the node's ranks may run on: the union of their
// sched_getaffinity masks, so a job under `taskset -c 0` counts one.
//
// DSANALYZE_WAIT chooses otherwise for every node: "yield" makes waiting ranks
// yield even with a core each (a node shared with other jobs, a test suite
// running several jobs at once), "spin" keeps MPICH's polling even when
// oversubscribed; unset or "auto" is the choice above. The warning depends on
// the count alone.
#pragma once

#include <string>

#include "comm/comm.h"
#include "util/status.h"

namespace dsanalyze {

// The warning's two parts: what is wrong and what to do; the line printed is
// "dsanalyze: warning: <message> (<fix>)".
struct OversubscriptionWarning {
  std::string message;  // "R ranks on a C-core node (host H); expect slow runs: ..."
  std::string fix;      // "use at most one rank per core"
};

enum class WaitPolicy { kAuto, kYield, kSpin };

// DSANALYZE_WAIT's policy; any value but auto, yield or spin is BadInput
// naming the variable.
Result<WaitPolicy> WaitPolicyFromEnv();

// Collective over `world`, once after MPI_Init and before other threads use
// MPI. Sets SetYieldWhileWaiting as `policy` says (kAuto: on each node with
// more ranks than cores). On an oversubscribed node, when `print` is set, its
// lowest rank prints the warning to stderr; that rank also gets it in
// `*warning` when given (the run's report shows it). Returns whether this
// rank's node is oversubscribed.
bool HandleOversubscription(const Comm& world, bool print, WaitPolicy policy,
                            OversubscriptionWarning* warning = nullptr);

}  // namespace dsanalyze
