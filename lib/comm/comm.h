// MPI without the boilerplate: an RAII environment and a communicator handle
// with typed collectives that infer counts and datatypes.
//
// Every call whose count depends on the data uses the MPI-4 large-count form
// (MPI_Allreduce_c, MPI_Allgather_c, MPI_Send_c, MPI_Alltoallv_c, ...) with an
// MPI_Count, so nothing overflows at 2^31 elements or bytes. Reductions count
// elements of a predefined type; everything else moves bytes, so no derived
// datatype is ever created (MPICH 4.0.x misbehaves past 512 of them). Element
// types must be trivially copyable.
//
// Errors: MPI's own errors abort the job (MPI_ERRORS_ARE_FATAL). Errors of
// ours that one rank finds are agreed on with AgreeOnStatus() at stage
// boundaries so that every rank returns the same Status and the job ends
// cleanly.
//
// A Comm is used from one thread at a time (MPI_THREAD_FUNNELED).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "comm/node_layout.h"
#include "util/exception_status.h"
#include "util/huge_pages.h"
#include "util/status.h"

namespace dsanalyze {

// Initializes MPI on construction and finalizes it on destruction. The
// threads MPI_Init starts block SIGINT, SIGTERM and SIGHUP, as the run's own
// workers do (util/interrupt.h).
class MpiEnvironment {
 public:
  MpiEnvironment(int* argc, char*** argv);
  ~MpiEnvironment();
  // Finalizes MPI now, after a barrier (once; the destructor then does
  // nothing). Collective.
  void Finalize();
  MpiEnvironment(const MpiEnvironment&) = delete;
  MpiEnvironment& operator=(const MpiEnvironment&) = delete;
};

// On a node with more ranks than cores (comm/oversubscription.h), MPICH's
// blocking calls busy-poll and keep the cores from the ranks that have work;
// Debian's ch4:ucx build has no setting to make them yield. When set, Comm's
// collectives and Wait start the non-blocking form and alternate MPI_Test
// with sched_yield(), then with sleeps of 5 to 100 us (comm.cc).
// Process-wide; set once after MPI_Init, before other threads use MPI.
// Results are the same either way.
void SetYieldWhileWaiting(bool yield);
bool YieldWhileWaiting();
// Completes `req` (MPI_Wait, or WaitYielding when set above).
void CompleteRequest(MPI_Request* req);
// Completes `req` testing, yielding, then sleeping, whatever is set above.
void WaitYielding(MPI_Request* req);

// Calls `blocking()`, or when waiting ranks yield, `start(&request)` (the
// non-blocking form of the same call) and completes the request.
template <class Blocking, class Start>
void RunCollective(Blocking&& blocking, Start&& start) {
  if (!YieldWhileWaiting()) {
    blocking();
    return;
  }
  MPI_Request req;
  start(&req);
  CompleteRequest(&req);
}

template <class T>
MPI_Datatype MpiType() {
  if constexpr (std::is_same_v<T, int64_t>)
    return MPI_INT64_T;
  else if constexpr (std::is_same_v<T, uint64_t>)
    return MPI_UINT64_T;
  else if constexpr (std::is_same_v<T, int32_t>)
    return MPI_INT32_T;
  else if constexpr (std::is_same_v<T, uint32_t>)
    return MPI_UINT32_T;
  else if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, int>)
    return MPI_INT;
  else
    static_assert(sizeof(T) == 0, "no MPI datatype for this type");
}

class Comm {
 public:
  // Collective over `comm` (it measures the node layout once: node_layout.h).
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD);

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_root() const { return rank_ == 0; }
  MPI_Comm raw() const { return comm_; }

  void Barrier() const;

  // A communicator of its own over the same ranks (MPI_Comm_dup; collective),
  // freed by MPI_Finalize: its collectives never match this one's.
  Comm Duplicate() const;

  // Element-wise reduction of equal-length vectors on all ranks.
  template <class T>
  std::vector<T> Allreduce(std::span<const T> values, MPI_Op op) const {
    std::vector<T> out(values.size());
    const MPI_Count n = static_cast<MPI_Count>(values.size());
    RunCollective([&] { MPI_Allreduce_c(values.data(), out.data(), n, MpiType<T>(), op, comm_); },
                  [&](MPI_Request* r) {
                    MPI_Iallreduce_c(values.data(), out.data(), n, MpiType<T>(), op, comm_, r);
                  });
    return out;
  }
  template <class T>
  T Allreduce(T value, MPI_Op op) const {
    return Allreduce<T>(std::span<const T>(&value, 1), op)[0];
  }

  // Element-wise sums of `values` over the ranks below this one (zeros on
  // rank 0), for equal-length vectors on all ranks.
  template <class T>
  std::vector<T> ExclusiveSum(std::span<const T> values) const {
    std::vector<T> out(values.size(), T{0});
    const MPI_Count n = static_cast<MPI_Count>(values.size());
    RunCollective([&] { MPI_Exscan_c(values.data(), out.data(), n, MpiType<T>(), MPI_SUM, comm_); },
                  [&](MPI_Request* r) {
                    MPI_Iexscan_c(values.data(), out.data(), n, MpiType<T>(), MPI_SUM, comm_, r);
                  });
    if (rank_ == 0) std::fill(out.begin(), out.end(), T{0});  // MPI leaves rank 0's undefined
    return out;
  }

  // Rank 0's `text`, on every rank.
  std::string BroadcastFromRoot(std::string text) const;

  // Where the ranks run, as measured when this Comm was made.
  const NodeLayout& node() const { return node_; }

  // Whether every rank runs on one node (shares memory with every other).
  bool OnOneNode() const { return node_.nodes == 1; }

  // Every rank's `value`, indexed by rank.
  template <class T>
  std::vector<T> Allgather(const T& value) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> out(static_cast<size_t>(size_));
    constexpr MPI_Count kBytes = sizeof(T);
    RunCollective(
        [&] { MPI_Allgather_c(&value, kBytes, MPI_BYTE, out.data(), kBytes, MPI_BYTE, comm_); },
        [&](MPI_Request* r) {
          MPI_Iallgather_c(&value, kBytes, MPI_BYTE, out.data(), kBytes, MPI_BYTE, comm_, r);
        });
    return out;
  }

  // Sends send[displ..] blocks: send_counts[r] elements go to rank r. Returns
  // what every rank sent here, in rank order; recv_counts (if given) receives
  // the per-source element counts. The result reuses `out`'s memory when it
  // is big enough (its contents are dropped). When a rank cannot allocate
  // what it receives, every rank returns its IoError ("exchange: out of
  // memory"), agreed on before any data moves (AgreeOnStatus: also an
  // interruption checkpoint).
  template <class T>
  Result<std::vector<T>> Alltoallv(std::span<const T> send, std::span<const uint64_t> send_counts,
                                   std::vector<uint64_t>* recv_counts = nullptr,
                                   std::vector<T> out = {}) const {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<uint64_t> rc;
    DSA_RETURN_IF_ERROR(
        AlltoallvBytes(send.data(), send_counts, sizeof(T), &rc, [&](uint64_t total) {
          ReserveReusing(out, total);
          out.resize(total);
          return static_cast<void*>(out.data());
        }));
    if (recv_counts) *recv_counts = std::move(rc);
    return out;
  }

  // Point-to-point, blocking, any size.
  template <class T>
  void Send(std::span<const T> data, int dest, int tag) const {
    static_assert(std::is_trivially_copyable_v<T>);
    MPI_Send_c(data.data(), static_cast<MPI_Count>(data.size_bytes()), MPI_BYTE, dest, tag, comm_);
  }
  template <class T>
  void Recv(std::span<T> data, int source, int tag) const {
    static_assert(std::is_trivially_copyable_v<T>);
    MPI_Recv_c(data.data(), static_cast<MPI_Count>(data.size_bytes()), MPI_BYTE, source, tag, comm_,
               MPI_STATUS_IGNORE);
  }
  template <class T>
  MPI_Request Irecv(std::span<T> data, int source, int tag) const {
    MPI_Request req;
    MPI_Irecv_c(data.data(), static_cast<MPI_Count>(data.size_bytes()), MPI_BYTE, source, tag,
                comm_, &req);
    return req;
  }
  static void Wait(MPI_Request* req) { CompleteRequest(req); }

  // Collective: returns OK on every rank if `local` is OK on every rank;
  // otherwise the error of the lowest failing rank, on every rank. A rank
  // whose `local` is OK but that caught SIGINT/SIGTERM/SIGHUP counts as
  // failing with CheckInterrupt()'s status (util/interrupt.h).
  Status AgreeOnStatus(const Status& local) const;

 private:
  template <class F>
  Status AlltoallvBytes(const void* send, std::span<const uint64_t> send_counts, size_t elem_size,
                        std::vector<uint64_t>* recv_counts, F&& alloc) const;

  Comm(MPI_Comm comm, const NodeLayout& node);

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  NodeLayout node_;
};

template <class F>
Status Comm::AlltoallvBytes(const void* send, std::span<const uint64_t> send_counts,
                            size_t elem_size, std::vector<uint64_t>* recv_counts, F&& alloc) const {
  const size_t p = static_cast<size_t>(size_);
  recv_counts->assign(p, 0);
  uint64_t* rcounts = recv_counts->data();
  RunCollective(
      [&] { MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, rcounts, 1, MPI_UINT64_T, comm_); },
      [&](MPI_Request* r) {
        MPI_Ialltoall(send_counts.data(), 1, MPI_UINT64_T, rcounts, 1, MPI_UINT64_T, comm_, r);
      });
  std::vector<MPI_Count> sc(p), rc(p);
  std::vector<MPI_Aint> sd(p), rd(p);
  uint64_t soff = 0, roff = 0;
  for (size_t r = 0; r < p; ++r) {
    sc[r] = static_cast<MPI_Count>(send_counts[r] * elem_size);
    sd[r] = static_cast<MPI_Aint>(soff);
    soff += send_counts[r] * elem_size;
    rc[r] = static_cast<MPI_Count>((*recv_counts)[r] * elem_size);
    rd[r] = static_cast<MPI_Aint>(roff);
    roff += (*recv_counts)[r] * elem_size;
  }
  void* recv = nullptr;
  DSA_RETURN_IF_ERROR(AgreeOnStatus(CatchAsStatus("exchange", [&] {
    recv = alloc(roff / elem_size);
    return Status::OK();
  })));
  RunCollective(
      [&] {
        MPI_Alltoallv_c(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(), rd.data(), MPI_BYTE,
                        comm_);
      },
      [&](MPI_Request* r) {
        MPI_Ialltoallv_c(send, sc.data(), sd.data(), MPI_BYTE, recv, rc.data(), rd.data(), MPI_BYTE,
                         comm_, r);
      });
  return Status::OK();
}

// True (on every rank, from the layout Comm measured) when MPI_Finalize may hang: Debian's MPICH
// 4.0.x over UCX can hang closing TCP connections when two or more nodes
// take part (pmodels/mpich#6596, fixed upstream after 4.0.2; docs/cluster.md).
bool FinalizeMayHang(const Comm& comm);

// Ends the whole job at once with `exit_code`, from any one rank: MPI_Abort
// when MPI is up (the launcher ends every rank, and reports `exit_code`),
// else _Exit. Why not an exit: a rank that exits without MPI_Finalize makes
// hydra's mpiexec kill the others, and from three ranks on it then often
// reports their SIGKILL (exit code 9) under its "BAD TERMINATION" banner
// (a test program whose rank 1 exits with 3 while the others wait in an
// Allreduce: 9 in 6 of 8 runs of 3 ranks; with MPI_Abort, 3 in all 42 runs of
// 2 to 4 ranks). What
// MPICH prints of an abort ("Abort(3) on node 1 ...") goes to /dev/null: the
// caller has printed its one line; stdout and stderr are flushed first, and
// read by the launcher.
[[noreturn]] void AbortJob(int exit_code);

// The last resort of a run whose rank caught an exception that no stage
// turned into a Status (cli::Run, after the exception unwound the run, so its
// destructors ran: on rank 0, the staging folder removed and the save path's
// lock released). Ends the job with `exit_code` (AbortJob: a peer may be
// waiting in a collective this rank left). `channel` is a Duplicate() of the
// run's communicator made at its start for this alone, so waiting on it
// matches no collective of the run. When every rank of it calls this within
// a few seconds (all threw, as an error of the same input does on every
// rank), rank 0 alone prints `line` and ends the job; otherwise each caller
// prints its own and ends it, and the ranks still waiting in a collective
// are ended with it: rank 0 among them keeps its staging folder and lock,
// which the next run on the save path removes, as after a kill
// (docs/reliability.md, "Memory and internal errors").
[[noreturn]] void EndJobOnEscape(const Comm& channel, const std::string& line, int exit_code);

// Flushes output and ends the process without MPI_Finalize once every rank
// has reached this call (rank 0 exits last): all of dsanalyze's work (files
// renamed into place) is complete by then. Collective.
[[noreturn]] void ExitWithoutFinalize(const Comm& comm, int exit_code);

}  // namespace dsanalyze
