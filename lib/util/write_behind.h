// WriteBehind: positional file writes done by a background thread, so the
// caller fills its next buffer while the kernel copies the previous one into
// the page cache (on the output-heavy rank 0 that copy is most of the write
// time, and the second core is otherwise idle then).
//
// The caller moves a filled buffer in with Write() and takes recycled buffers
// back with TakeBuffer(), so steady-state writing allocates nothing and touches
// no fresh pages. At most `max_pending` buffers wait at once (Write() blocks
// beyond that) and at most kMaxSpares are kept for reuse, which bounds memory.
//
// Errors: the first failed write is kept; every later Write() and Drain()
// return it and queued writes are dropped. The target OutputFiles are owned by
// the caller and must outlive the WriteBehind (or its Drain()); the destructor
// drops what is still queued and joins the thread.
//
// Thread-safety: one caller thread; the background thread is internal.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "util/file_util.h"
#include "util/status.h"
#include "util/worker_thread.h"

namespace dsanalyze {

// A heap buffer that is not zero-filled when allocated.
struct WriteBuffer {
  std::unique_ptr<std::byte[]> data;
  size_t capacity = 0;
  size_t size = 0;  // bytes in use
};

class WriteBehind {
 public:
  explicit WriteBehind(size_t max_pending = 2) : max_pending_(max_pending) {}
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;
  ~WriteBehind();

  // Queues `data` to be written to `file` at `offset`. Returns the first
  // error of any earlier write (then `data` is dropped).
  Status Write(OutputFile* file, uint64_t offset, WriteBuffer data);

  // An empty buffer of at least `capacity` bytes: a recycled one when one is
  // big enough, else a new one.
  WriteBuffer TakeBuffer(size_t capacity);

  // Waits until every queued write is done; returns the first error.
  Status Drain();

 private:
  struct Job {
    OutputFile* file;
    uint64_t offset;
    WriteBuffer data;
  };
  static constexpr size_t kMaxSpares = 4;
  void Run();

  const size_t max_pending_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Job> queue_;            // guarded by mu_
  bool busy_ = false;                // a job is being written (guarded by mu_)
  bool stop_ = false;                // guarded by mu_
  Status error_;                     // first failure (guarded by mu_)
  std::vector<WriteBuffer> spares_;  // guarded by mu_
  WorkerThread thread_;              // started by the first Write
};

}  // namespace dsanalyze
