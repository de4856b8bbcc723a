// Comm's typed collectives under mpiexec -n k, with blocking calls and with
// test-and-yield waiting alike: the results are right on every rank, and every
// count that grows with the data reaches MPI whole, as an MPI_Count, through
// the MPI-4 large-count entry points.
//
// Calling them with 2^31 elements would take 16 GiB per rank (input and
// output), more than a test machine has. Instead this program interposes on
// those entry points through MPI's profiling interface (it defines MPI_X_c and
// forwards to PMPI_X_c) and records the count each call receives: a wrapper
// that narrowed its count to int, or called the int-count function, fails.
// Exits non-zero on the first failure, naming it.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "comm/oversubscription.h"
#include "support/mpi_suite.h"

namespace {

// The last call of one entry point: how many so far, and its count.
struct Seen {
  int calls = 0;
  MPI_Count count = -1;
  void Record(MPI_Count n) {
    ++calls;
    count = n;
  }
};
Seen allreduce_c, iallreduce_c, allgather_c, iallgather_c, bcast_c;

}  // namespace

extern "C" {
int MPI_Allreduce_c(const void* send, void* recv, MPI_Count count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm) {
  allreduce_c.Record(count);
  return PMPI_Allreduce_c(send, recv, count, type, op, comm);
}
int MPI_Iallreduce_c(const void* send, void* recv, MPI_Count count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm, MPI_Request* request) {
  iallreduce_c.Record(count);
  return PMPI_Iallreduce_c(send, recv, count, type, op, comm, request);
}
int MPI_Allgather_c(const void* send, MPI_Count send_count, MPI_Datatype send_type, void* recv,
                    MPI_Count recv_count, MPI_Datatype recv_type, MPI_Comm comm) {
  allgather_c.Record(send_count);
  return PMPI_Allgather_c(send, send_count, send_type, recv, recv_count, recv_type, comm);
}
int MPI_Iallgather_c(const void* send, MPI_Count send_count, MPI_Datatype send_type, void* recv,
                     MPI_Count recv_count, MPI_Datatype recv_type, MPI_Comm comm,
                     MPI_Request* request) {
  iallgather_c.Record(send_count);
  return PMPI_Iallgather_c(send, send_count, send_type, recv, recv_count, recv_type, comm, request);
}
int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  bcast_c.Record(count);
  return PMPI_Bcast_c(buffer, count, type, root, comm);
}
}

namespace dsanalyze::collectives_test {
namespace {

using test::Check;

void AllreduceCases(const Comm& comm, const std::string& mode) {
  const int64_t r = comm.rank(), p = comm.size();
  std::vector<int64_t> local(5);
  for (int64_t i = 0; i < 5; ++i) local[i] = r * 1000 + i;
  Seen& entry = YieldWhileWaiting() ? iallreduce_c : allreduce_c;
  const int before = entry.calls;
  const std::vector<int64_t> sums = comm.Allreduce<int64_t>(local, MPI_SUM);
  const Seen seen = entry;
  std::vector<int64_t> want(5);
  for (int64_t i = 0; i < 5; ++i) want[i] = 1000 * p * (p - 1) / 2 + p * i;
  Check(comm, sums == want, mode + ": Allreduce(span) sums element-wise");
  Check(comm, seen.calls == before + 1 && seen.count == 5,
        mode + ": Allreduce(span) passes its 5 elements as an MPI_Count");
  Check(comm, comm.Allreduce<uint32_t>(static_cast<uint32_t>(r), MPI_MAX) == p - 1,
        mode + ": Allreduce(value) reduces one value");
}

struct Record {
  int64_t id;
  double weight;
  char tag[3];
};

void AllgatherCases(const Comm& comm, const std::string& mode) {
  const int r = comm.rank();
  Seen& entry = YieldWhileWaiting() ? iallgather_c : allgather_c;
  const int before = entry.calls;
  const std::vector<Record> all = comm.Allgather(Record{r * 7, r / 2.0, {'a', 'b', 'c'}});
  const Seen seen = entry;
  bool ok = all.size() == static_cast<size_t>(comm.size());
  for (size_t s = 0; ok && s < all.size(); ++s)
    ok = all[s].id == static_cast<int64_t>(s) * 7 && all[s].weight == s / 2.0 &&
         all[s].tag[2] == 'c';
  Check(comm, ok, mode + ": Allgather returns every rank's record in rank order");
  Check(comm, seen.calls == before + 1 && seen.count == static_cast<MPI_Count>(sizeof(Record)),
        mode + ": Allgather passes sizeof(Record) bytes as an MPI_Count");
}

void AlltoallvAndPointToPoint(const Comm& comm, const std::string& mode) {
  const int r = comm.rank(), p = comm.size();
  // Rank r sends d + 1 copies of 100 r + d to rank d.
  std::vector<int32_t> send;
  std::vector<uint64_t> send_counts;
  for (int d = 0; d < p; ++d) {
    send.insert(send.end(), static_cast<size_t>(d + 1), 100 * r + d);
    send_counts.push_back(static_cast<uint64_t>(d + 1));
  }
  std::vector<uint64_t> recv_counts;
  const std::vector<int32_t> got = comm.Alltoallv<int32_t>(send, send_counts, &recv_counts).value();
  std::vector<int32_t> want;
  for (int s = 0; s < p; ++s) want.insert(want.end(), static_cast<size_t>(r + 1), 100 * s + r);
  Check(comm,
        got == want && recv_counts == std::vector<uint64_t>(static_cast<size_t>(p),
                                                            static_cast<uint64_t>(r + 1)),
        mode + ": Alltoallv delivers each source's block in rank order");

  // Rank 0 claims to send the last rank more ints than a vector can hold
  // (2^61: std::length_error there, whatever the machine's memory): every
  // rank gets its "out of memory" IoError before any data moves (the send
  // buffer is far shorter than the count claims; it is never read).
  std::vector<uint64_t> huge(static_cast<size_t>(p), 0);
  if (r == 0) huge[static_cast<size_t>(p - 1)] = uint64_t{1} << 61;
  const Result<std::vector<int32_t>> refused = comm.Alltoallv<int32_t>(send, huge);
  Check(comm,
        !refused.ok() && refused.status().code() == Status::Code::kIoError &&
            refused.status().message().rfind("exchange: out of memory", 0) == 0,
        mode + ": Alltoallv that one rank cannot receive fails on every rank: " +
            refused.status().message());

  // A ring: post the receive, send to the next rank, wait.
  std::vector<int64_t> in(3), out = {r, r + 1, r + 2};
  MPI_Request req = comm.Irecv(std::span<int64_t>(in), (r + p - 1) % p, 5);
  comm.Send(std::span<const int64_t>(out), (r + 1) % p, 5);
  Comm::Wait(&req);
  const int64_t prev = (r + p - 1) % p;
  Check(comm, in == std::vector<int64_t>{prev, prev + 1, prev + 2},
        mode + ": Send/Irecv/Wait pass a message round the ring");
}

void AgreeCases(const Comm& comm, const std::string& mode) {
  const int last = comm.size() - 1;
  const std::string long_message(100000, 'x');
  const int before = bcast_c.calls;
  const Status st =
      comm.AgreeOnStatus(comm.rank() == last ? Status::BadInput(long_message + "!") : Status::OK());
  const Seen seen = bcast_c;
  Check(comm, st.code() == Status::Code::kBadInput && st.message() == long_message + "!",
        mode + ": AgreeOnStatus gives every rank the failing rank's whole message");
  Check(comm, seen.calls == before + 1 && seen.count == 100001,
        mode + ": AgreeOnStatus broadcasts the message length as an MPI_Count");
  const Status sig = comm.AgreeOnStatus(comm.rank() == 0 ? Status::Interrupted(15, "stopped")
                                                         : Status::BadInput("later rank"));
  Check(
      comm,
      sig.code() == Status::Code::kInterrupted && sig.signal() == 15 && sig.message() == "stopped",
      mode + ": AgreeOnStatus takes the lowest failing rank's code and signal");
  Check(comm, comm.AgreeOnStatus(Status::OK()).ok(), mode + ": all OK agrees on OK");
}

// HandleOversubscription sets the waiting as the policy says: kAuto yields
// where the node has more ranks than cores (its result), the others always or
// never.
void WaitPolicyCases(const Comm& comm) {
  const bool over = HandleOversubscription(comm, false, WaitPolicy::kAuto);
  Check(comm, YieldWhileWaiting() == over, "auto: ranks yield where the node is oversubscribed");
  HandleOversubscription(comm, false, WaitPolicy::kYield);
  Check(comm, YieldWhileWaiting(), "yield: ranks yield");
  Check(comm, HandleOversubscription(comm, false, WaitPolicy::kSpin) == over,
        "the policy does not change what counts as oversubscribed");
  Check(comm, !YieldWhileWaiting(), "spin: ranks poll");
}

}  // namespace
}  // namespace dsanalyze::collectives_test

DSA_MPI_SUITE(collectives) {
  using namespace dsanalyze;
  using namespace dsanalyze::collectives_test;
  for (bool yield : {false, true}) {
    SetYieldWhileWaiting(yield);
    const std::string mode = yield ? "yielding" : "blocking";
    AllreduceCases(comm, mode);
    AllgatherCases(comm, mode);
    AlltoallvAndPointToPoint(comm, mode);
    AgreeCases(comm, mode);
  }
  WaitPolicyCases(comm);
}
