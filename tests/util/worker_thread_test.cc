// WorkerThread carries an exception to the thread that joins it, and
// CatchAsStatus turns exceptions into the Status the ranks agree on.
#include "util/worker_thread.h"

#include <catch2/catch.hpp>
#include <new>
#include <stdexcept>
#include <vector>

#include "util/exception_status.h"

namespace dsanalyze {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("WorkerThread rethrows in the joining thread what escaped its function",
          "[util][worker_thread]") {
  int out = 0;
  WorkerThread fine = StartWorkerThread([](int* to) { *to = 7; }, &out);
  CHECK_NOTHROW(fine.join());
  CHECK(out == 7);

  WorkerThread failing = StartWorkerThread([] { throw std::runtime_error("on the worker"); });
  CHECK_THROWS_WITH(failing.join(), "on the worker");
  CHECK_FALSE(failing.joinable());

  // Destroyed without a join, a thread that threw ends nothing but itself
  // (on a std::thread the exception would have called std::terminate).
  {
    WorkerThread dropped = StartWorkerThread([] { throw std::bad_alloc(); });
  }
  WorkerThread moved = StartWorkerThread([] { throw std::logic_error("moved"); });
  WorkerThread owner = std::move(moved);
  CHECK_THROWS_WITH(owner.join(), "moved");
}

TEST_CASE("CatchAsStatus: a failed allocation is an I/O error, anything else internal",
          "[util][worker_thread]") {
  CHECK(CatchAsStatus("map", [] { return Status::OK(); }).ok());
  CHECK(CatchAsStatus("map", [] { return Status::BadInput("x"); }).message() == "x");

  const Status alloc = CatchAsStatus("map", []() -> Status { throw std::bad_alloc(); });
  CHECK(alloc.code() == Status::Code::kIoError);
  CHECK(alloc.exit_code() == 3);
  CHECK_THAT(alloc.message(), StartsWith("map: out of memory (std::bad_alloc)"));

  const Status length = CatchAsStatus("sort", [] {
    std::vector<int64_t> v;
    v.reserve(v.max_size() + 1);
    return Status::OK();
  });
  CHECK(length.code() == Status::Code::kIoError);
  CHECK_THAT(length.message(), StartsWith("sort: out of memory (std::length_error: "));

  const Status other = CatchAsStatus("rank 1", []() -> Status { throw std::out_of_range("at"); });
  CHECK(other.code() == Status::Code::kInternal);
  CHECK(other.message() == "rank 1: internal error: at");
  CHECK_THAT(CatchAsStatus("x", []() -> Status { throw 42; }).message(),
             Contains("an exception of unknown type"));
}

}  // namespace dsanalyze
