#include "comm/comm.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "util/interrupt.h"

namespace dsanalyze {
namespace {

std::atomic<bool> yield_while_waiting{false};

}  // namespace

void SetYieldWhileWaiting(bool yield) { yield_while_waiting = yield; }
bool YieldWhileWaiting() { return yield_while_waiting; }

void CompleteRequest(MPI_Request* req) {
  if (YieldWhileWaiting())
    WaitYielding(req);
  else
    MPI_Wait(req, MPI_STATUS_IGNORE);
}

void WaitYielding(MPI_Request* req) {
  // Yield first; a wait that lasts sleeps, from 5 us doubling to 100 us:
  // sched_yield leaves the core to a task queued on it, but the rank the
  // others wait for is often queued on the other core, where yielding does
  // not help; a sleeping rank frees its core for whoever needs it. 100 us
  // keeps the added latency small (gather_write's suite at 3 ranks on 2
  // cores: 8.4 s against 24.9 s yielding only; a 1 ms cap took 44 s).
  constexpr int kYields = 64;
  constexpr auto kLongestSleep = std::chrono::microseconds(100);
  auto sleep = std::chrono::microseconds(5);
  int done = 0;
  for (int tries = 0;; ++tries) {
    MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (done) return;
    if (tries < kYields) {
      sched_yield();
      continue;
    }
    std::this_thread::sleep_for(sleep);
    sleep = std::min(2 * sleep, kLongestSleep);
  }
}

MpiEnvironment::MpiEnvironment(int* argc, char*** argv) {
  // The threads MPI starts here (UCX's "async" progress thread) inherit this
  // mask, so a SIGINT sent to the process is never handled on one of them,
  // where it could land after the main thread's last interruption checkpoint
  // (util/interrupt.h, StartWorkerThread).
  const InterruptsBlocked blocked;
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

MpiEnvironment::~MpiEnvironment() { Finalize(); }

void MpiEnvironment::Finalize() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  // The ranks enter MPI_Finalize together. Over UCX's TCP transport (MPICH
  // 4.0) a rank that enters while another still works (rank 0 writing the
  // output) can hang closing its connections: 2 TCP hosts hung in 2 of 4 runs
  // without this barrier (cluster.hosts_tcp).
  MPI_Request together;
  MPI_Ibarrier(MPI_COMM_WORLD, &together);
  CompleteRequest(&together);
  MPI_Finalize();
}

Comm::Comm(MPI_Comm comm) : Comm(comm, MeasureNodeLayout(comm)) {}

Comm::Comm(MPI_Comm comm, const NodeLayout& node) : comm_(comm), node_(node) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void Comm::Barrier() const {
  RunCollective([&] { MPI_Barrier(comm_); }, [&](MPI_Request* r) { MPI_Ibarrier(comm_, r); });
}

Comm Comm::Duplicate() const {
  MPI_Comm copy;
  MPI_Comm_dup(comm_, &copy);
  return Comm(copy, node_);  // the same ranks on the same nodes
}

std::string Comm::BroadcastFromRoot(std::string text) const {
  uint64_t length = text.size();
  RunCollective([&] { MPI_Bcast(&length, 1, MPI_UINT64_T, 0, comm_); },
                [&](MPI_Request* r) { MPI_Ibcast(&length, 1, MPI_UINT64_T, 0, comm_, r); });
  text.resize(length);
  const MPI_Count n = static_cast<MPI_Count>(length);
  RunCollective([&] { MPI_Bcast_c(text.data(), n, MPI_CHAR, 0, comm_); },
                [&](MPI_Request* r) { MPI_Ibcast_c(text.data(), n, MPI_CHAR, 0, comm_, r); });
  return text;
}

Status Comm::AgreeOnStatus(const Status& given) const {
  // Every agreement is a checkpoint where a caught signal stops the run.
  const Status local = given.ok() ? CheckInterrupt() : given;
  const int mine = local.ok() ? size_ : rank_;
  const int first = Allreduce(mine, MPI_MIN);
  if (first == size_) return Status::OK();
  // The first failing rank tells everyone its code, signal and message.
  int64_t header[3] = {static_cast<int64_t>(local.code()), local.signal(),
                       static_cast<int64_t>(local.message().size())};
  MPI_Bcast(header, 3, MPI_INT64_T, first, comm_);
  const size_t length = static_cast<size_t>(header[2]);
  std::string message = rank_ == first ? local.message() : std::string(length, '\0');
  MPI_Bcast_c(message.data(), static_cast<MPI_Count>(length), MPI_CHAR, first, comm_);
  switch (static_cast<Status::Code>(header[0])) {
    case Status::Code::kBadInput:
      return Status::BadInput(message);
    case Status::Code::kInterrupted:
      return Status::Interrupted(static_cast<int>(header[1]), message);
    case Status::Code::kIoError:
      return Status::IoError(message);
    default:
      return Status::Internal(message);
  }
}

bool FinalizeMayHang(const Comm& comm) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  const std::string v(version, static_cast<size_t>(len));
  if (v.rfind("MPICH Version:\t4.0.", 0) != 0 || v.find("ch4:ucx") == std::string::npos)
    return false;
  return comm.node().nodes >= 2;
}

namespace {

// Waits (at most a second) until the reader of `fd`, when it is a pipe, has
// taken what was written to it: MPI_Abort ends the job at once, and hydra's
// proxy, which forwards a rank's output, could lose a line still in the pipe
// (rank 0's line was missing in 4 of 16 aborts of 2 and 3 ranks without this
// wait, in none of 24 with it).
void WaitUntilRead(int fd) {
  for (int i = 0; i < 1000; ++i) {
    int unread = 0;
    if (::ioctl(fd, FIONREAD, &unread) != 0 || unread == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

void AbortJob(int exit_code) {
  std::fflush(nullptr);
  WaitUntilRead(STDOUT_FILENO);
  WaitUntilRead(STDERR_FILENO);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) std::_Exit(exit_code);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);  // MPI_Abort does not return
}

void EndJobOnEscape(const Comm& channel, const std::string& line, int exit_code) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) {  // thrown after the run's end: no peer is left to agree with
    std::fputs(line.c_str(), stderr);
    AbortJob(exit_code);
  }
  // Rank 0 waits less: the others own nothing on disk, and its own cleanup is
  // done; a peer that is still unwinding is ended harmlessly.
  const auto wait = std::chrono::seconds(channel.is_root() ? 2 : 5);
  const auto deadline = std::chrono::steady_clock::now() + wait;
  int mine = 1, all = 0, done = 0;
  MPI_Request req;
  MPI_Iallreduce(&mine, &all, 1, MPI_INT, MPI_SUM, channel.raw(), &req);
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!done || channel.is_root()) {
    std::fputs(line.c_str(), stderr);
    AbortJob(exit_code);
  }
  // Every rank threw, and rank 0 prints the line, then ends the job: this
  // rank waits for that (ending the job first could cut rank 0 short).
  std::this_thread::sleep_for(wait);
  AbortJob(exit_code);
}

void ExitWithoutFinalize(const Comm& comm, int exit_code) {
  // A barrier alone lets ranks leave it at different times: a rank that exits
  // while a peer still completes its last barrier step closes the connection
  // under it, and the peer can fail the job with exit code 1 and no message
  // (seen once in CI on three simulated hosts). Instead each rank hands a
  // synchronous send to rank 0 (complete only once rank 0 has matched it, so
  // nothing of it is still in flight) and exits; rank 0 exits last, after it
  // has heard from every rank and owes nobody a message.
  std::fflush(nullptr);
  constexpr int kDoneTag = 0x7d5a;
  if (!comm.is_root()) {
    MPI_Ssend(nullptr, 0, MPI_BYTE, 0, kDoneTag, comm.raw());
  } else {
    for (int i = 1; i < comm.size(); ++i)
      MPI_Recv(nullptr, 0, MPI_BYTE, MPI_ANY_SOURCE, kDoneTag, comm.raw(), MPI_STATUS_IGNORE);
  }
  std::_Exit(exit_code);
}

}  // namespace dsanalyze
