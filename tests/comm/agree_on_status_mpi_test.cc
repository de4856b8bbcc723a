// Comm::AgreeOnStatus under mpiexec -n k, against its contract (comm.h): OK
// everywhere gives OK everywhere; otherwise every rank returns the error of
// the lowest failing rank, with its code, message and signal (so the same
// exit code, util/status.h); a rank whose status is OK but that caught
// SIGINT/SIGTERM/SIGHUP fails with CheckInterrupt()'s status
// (util/interrupt.h), until DisarmInterrupts().
// A caught signal cannot be forgotten, so the signal cases run last.
// Exits non-zero if any check failed, naming each failure.
#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "support/mpi_suite.h"
#include "util/interrupt.h"
#include "util/status.h"

namespace dsanalyze::agree_on_status_test {
namespace {

using test::Check;

std::string Describe(const Status& s) {
  return "code " + std::to_string(static_cast<int>(s.code())) + " signal " +
         std::to_string(s.signal()) + " exit " + std::to_string(s.exit_code()) + " message '" +
         s.message() + "'";
}

// Every rank passes local[rank]; every rank must get `want` back.
void Agree(const Comm& comm, const std::string& what, const std::vector<Status>& local,
           const Status& want) {
  const Status got = comm.AgreeOnStatus(local[comm.rank()]);
  const bool same = got.code() == want.code() && got.message() == want.message() &&
                    got.signal() == want.signal() && got.exit_code() == want.exit_code();
  Check(comm, same, what + ": got " + Describe(got) + ", expected " + Describe(want));
}

// One status of each kind, told apart by rank and kind in the message.
std::vector<Status> ErrorsOfRank(int r) {
  const std::string at = "rank " + std::to_string(r);
  return {Status::BadInput(at + ": config.json: bad value"),
          Status::IoError(at + ": out.bin: No space left on device"),
          Status::Internal(at + ": internal"), Status::Interrupted(SIGHUP, at + ": hung up")};
}

void SingleFailingRank(const Comm& comm) {
  const int p = comm.size();
  Agree(comm, "all OK", std::vector<Status>(p), Status::OK());
  for (int r = 0; r < p; ++r) {
    for (const Status& error : ErrorsOfRank(r)) {
      std::vector<Status> local(p);
      local[r] = error;
      Agree(comm, "only rank " + std::to_string(r) + " fails (" + Describe(error) + ")", local,
            error);
    }
  }
  // Exit codes as status.h documents them.
  const std::vector<Status> e = ErrorsOfRank(0);
  Check(comm,
        e[0].exit_code() == 2 && e[1].exit_code() == 3 && e[2].exit_code() == 3 &&
            e[3].exit_code() == 128 + SIGHUP,
        "exit codes 2, 3, 3, 129");
  // An empty message and a long one (more than any fixed buffer) arrive whole.
  std::vector<Status> local(p);
  local[p - 1] = Status::IoError("");
  Agree(comm, "empty message from the last rank", local, Status::IoError(""));
  local[p - 1] = Status::Internal(std::string(100000, 'x') + "end");
  Agree(comm, "100 kB message from the last rank", local, local[p - 1]);
}

// The lowest failing rank wins, whatever the kinds.
void SeveralFailingRanks(const Comm& comm) {
  const int p = comm.size();
  std::vector<Status> all(p);
  for (int r = 0; r < p; ++r) all[r] = ErrorsOfRank(r)[r % 4];
  Agree(comm, "every rank fails", all, all[0]);
  if (p < 2) return;
  std::vector<Status> above_zero = all;
  above_zero[0] = Status::OK();
  Agree(comm, "every rank but 0 fails", above_zero, all[1]);
  std::vector<Status> last_two(p);
  last_two[p - 2] = Status::IoError("rank " + std::to_string(p - 2) + ": io");
  last_two[p - 1] = Status::BadInput("rank " + std::to_string(p - 1) + ": bad");
  Agree(comm, "the last two ranks fail", last_two, last_two[p - 2]);
}

// A signal caught on `rank` (the handler only records it).
void RaiseOn(const Comm& comm, int rank, int signal) {
  if (comm.rank() == rank) std::raise(signal);
}

void CaughtSignals(const Comm& comm) {
  const int p = comm.size(), last = p - 1;
  InstallInterruptHandlers();
  SetInterruptStage("agree-test");
  const std::vector<Status> ok(p);
  Agree(comm, "handlers installed, no signal", ok, Status::OK());

  RaiseOn(comm, last, SIGTERM);
  const Status term = Status::Interrupted(
      SIGTERM, "interrupted by SIGTERM during agree-test; nothing was committed");
  Agree(comm, "SIGTERM caught on the last rank", ok, term);
  Check(comm, term.exit_code() == 143, "SIGTERM exits 143");
  // A rank's own error is its status, not the signal it caught.
  std::vector<Status> local(p);
  local[last] = Status::IoError("own error");
  Agree(comm, "the last rank's own error beats its signal", local, local[last]);
  if (p > 1) {
    local.assign(p, Status::OK());
    local[0] = Status::BadInput("rank 0: bad");
    Agree(comm, "rank 0's error beats the last rank's signal", local, local[0]);
  }
  // Only the first signal is kept.
  RaiseOn(comm, last, SIGINT);
  Agree(comm, "a second signal on the last rank", ok, term);
  if (p > 1) {
    RaiseOn(comm, 0, SIGINT);
    Agree(comm, "SIGINT on rank 0 beats SIGTERM on the last rank", ok,
          Status::Interrupted(SIGINT,
                              "interrupted by SIGINT during agree-test; nothing was committed"));
  }

  DisarmInterrupts();
  Agree(comm, "disarmed: the caught signals no longer count", ok, Status::OK());
  Check(comm, comm.rank() != last || CaughtSignal() == SIGTERM,
        "CaughtSignal() still reports SIGTERM after DisarmInterrupts()");
  local.assign(p, Status::OK());
  local[last] = Status::Interrupted(SIGINT, "given");
  Agree(comm, "disarmed: an Interrupted status given still counts", local, local[last]);
}

}  // namespace
}  // namespace dsanalyze::agree_on_status_test

DSA_MPI_SUITE(agree_on_status) {
  using namespace dsanalyze;
  using namespace dsanalyze::agree_on_status_test;
  SingleFailingRank(comm);
  SeveralFailingRanks(comm);
  CaughtSignals(comm);
}
