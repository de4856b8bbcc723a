// WorkerThread: every thread a command starts besides its main one (map
// workers, sort threads, the write-behind and progress threads, merge's
// workers), through StartWorkerThread.
//
// Two things set it apart from a std::thread:
// - it never takes SIGINT, SIGTERM or SIGHUP (it inherits a mask that blocks
//   them). A signal sent to the process is handled by any one thread that does
//   not block it; handled on a worker, the flag may be stored only after the
//   main thread has passed the last checkpoint before the commit, so a signal
//   pending before that checkpoint would complete the commit instead of
//   interrupting it (util/interrupt.h);
// - an exception that escapes its function reaches the thread that joins it:
//   join() rethrows it there. On a std::thread it would call std::terminate,
//   which aborts the process without unwinding its stack, so the staging
//   folder and the save path's lock stay behind and MPICH's mpiexec prints its
//   "BAD TERMINATION" banner. Rethrown in the joining thread, it meets that
//   thread's handlers (a stage's CatchAsStatus, or the command's last resort)
//   and the destructors that clean up run (docs/reliability.md, "Memory and
//   internal errors").
//
// The destructor joins a thread still running (so unwinding past one never
// terminates the process) and drops the exception it carried, if any: the
// thread destroying it is already unwinding from another, or never asked.
// Thread-safety: as std::thread; one owner calls join().
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <utility>

#include "util/interrupt.h"

namespace dsanalyze {

class WorkerThread {
 public:
  WorkerThread() = default;
  // Starts std::invoke(f, args...) on a new thread (arguments copied or
  // moved, as std::thread does).
  template <class F, class... Args>
  explicit WorkerThread(F&& f, Args&&... args) : escaped_(std::make_unique<std::exception_ptr>()) {
    const InterruptsBlocked blocked;  // the new thread inherits the mask
    thread_ = std::thread(
        [escaped = escaped_.get()](auto fn, auto... a) {
          try {
            std::invoke(std::move(fn), std::move(a)...);
          } catch (...) {
            *escaped = std::current_exception();
          }
        },
        std::forward<F>(f), std::forward<Args>(args)...);
  }
  WorkerThread(WorkerThread&&) noexcept = default;
  WorkerThread& operator=(WorkerThread&& other) noexcept {
    JoinDiscardingException();
    thread_ = std::move(other.thread_);
    escaped_ = std::move(other.escaped_);
    return *this;
  }
  ~WorkerThread() { JoinDiscardingException(); }

  bool joinable() const { return thread_.joinable(); }
  // Waits for the thread; rethrows the exception that escaped its function.
  void join() {
    thread_.join();
    if (escaped_ && *escaped_) std::rethrow_exception(std::exchange(*escaped_, nullptr));
  }
  // Waits for the thread, if it runs, and drops what escaped it: for
  // destructors, which must not throw.
  void JoinDiscardingException() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
  // On the heap, so that the thread's pointer to it survives moves.
  std::unique_ptr<std::exception_ptr> escaped_;
};

// WorkerThread(args...): how every thread of a command is started.
template <class... Args>
WorkerThread StartWorkerThread(Args&&... args) {
  return WorkerThread(std::forward<Args>(args)...);
}

}  // namespace dsanalyze
