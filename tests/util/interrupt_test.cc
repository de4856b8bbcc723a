#include "util/interrupt.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <csignal>
#include <string>

#include "util/worker_thread.h"

namespace dsanalyze {
namespace {

// Runs `body` in a forked child (the handlers and the caught signal are
// process-wide, and the other tests must not see them); returns the line of
// the first failed expectation, 0 when all held.
template <class F>
int InChild(F body) {
  const pid_t pid = fork();
  if (pid == 0) _exit(body());
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

#define EXPECT_OR_RETURN(cond) \
  if (!(cond)) return __LINE__ % 250 + 1

TEST_CASE("a caught signal becomes an Interrupted status naming it and the stage", "[interrupt]") {
  CHECK(InChild([] {
          InstallInterruptHandlers();
          EXPECT_OR_RETURN(CheckInterrupt().ok());
          SetInterruptStage("write");
          std::raise(SIGTERM);  // would end the process without the handler
          std::raise(SIGINT);   // only the first signal counts
          const Status st = CheckInterrupt();
          EXPECT_OR_RETURN(st.code() == Status::Code::kInterrupted);
          EXPECT_OR_RETURN(st.exit_code() == 143);
          EXPECT_OR_RETURN(st.message() ==
                           "interrupted by SIGTERM during write; nothing was committed");
          EXPECT_OR_RETURN(st.WithPrefix("x").exit_code() == 143);
          return 0;
        }) == 0);
}

TEST_CASE("exit codes are 128 + the signal", "[interrupt]") {
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    CHECK(InChild([signal] {
            InstallInterruptHandlers();
            std::raise(signal);
            EXPECT_OR_RETURN(CaughtSignal() == signal);
            EXPECT_OR_RETURN(CheckInterrupt().exit_code() == 128 + signal);
            return 0;
          }) == 0);
  }
  CHECK(SignalName(SIGHUP) == "SIGHUP");
  CHECK(SignalName(SIGUSR1) == "signal " + std::to_string(SIGUSR1));
}

TEST_CASE("once disarmed for the commit, a signal no longer interrupts", "[interrupt]") {
  CHECK(InChild([] {
          InstallInterruptHandlers();
          DisarmInterrupts();
          std::raise(SIGINT);
          EXPECT_OR_RETURN(CheckInterrupt().ok());
          EXPECT_OR_RETURN(CaughtSignal() == SIGINT);
          return 0;
        }) == 0);
}

bool InterruptsBlockedHere() {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, nullptr, &mask);
  return sigismember(&mask, SIGINT) == 1 && sigismember(&mask, SIGTERM) == 1 &&
         sigismember(&mask, SIGHUP) == 1;
}

TEST_CASE("worker threads block the interrupt signals; the caller's mask is unchanged",
          "[interrupt]") {
  bool worker_blocks = false;
  WorkerThread worker = StartWorkerThread([&] { worker_blocks = InterruptsBlockedHere(); });
  worker.join();
  CHECK(worker_blocks);
  CHECK_FALSE(InterruptsBlockedHere());
}

// The fault tests' situation: the process is stopped, a signal to it waits,
// and it is continued. With a worker alive, the main thread must have handled
// the signal by the time it runs on, or it could pass the last checkpoint
// before the commit without seeing it (a worker's handler may run later).
TEST_CASE("a signal that waits while the process is stopped is seen when the main thread resumes",
          "[interrupt]") {
  for (int round = 0; round < 20; ++round) {
    const pid_t pid = fork();
    if (pid == 0) {
      InstallInterruptHandlers();
      std::atomic<bool> done{false};
      WorkerThread worker = StartWorkerThread([&] {
        while (!done.load()) std::this_thread::yield();
      });
      std::raise(SIGSTOP);
      const bool seen = CaughtSignal() == SIGINT;
      done = true;
      worker.join();
      _exit(seen ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, WUNTRACED);
    REQUIRE(WIFSTOPPED(status));
    kill(pid, SIGINT);
    kill(pid, SIGCONT);
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
}

}  // namespace
}  // namespace dsanalyze
