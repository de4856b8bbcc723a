#include "util/interrupt.h"

#include <atomic>
#include <csignal>

namespace dsanalyze {
namespace {

// Only lock-free atomics may be touched from a signal handler.
std::atomic<int> caught{0};
std::atomic<bool> armed{true};
std::atomic<const char*> stage{"open"};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnSignal(int signal) {
  int none = 0;
  caught.compare_exchange_strong(none, signal);
}

sigset_t InterruptSignals() {
  sigset_t set;
  sigemptyset(&set);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, signal);
  return set;
}

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
  armed.store(true);
}

InterruptsBlocked::InterruptsBlocked() {
  const sigset_t set = InterruptSignals();
  pthread_sigmask(SIG_BLOCK, &set, &previous_);
}

InterruptsBlocked::~InterruptsBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }

int CaughtSignal() { return caught.load(); }

void SetInterruptStage(const char* name) { stage.store(name); }

Status CheckInterrupt() {
  const int signal = caught.load(std::memory_order_relaxed);
  if (signal == 0 || !armed.load(std::memory_order_relaxed)) return Status::OK();
  return Status::Interrupted(signal, "interrupted by " + SignalName(signal) + " during " +
                                         stage.load() + "; nothing was committed");
}

void DisarmInterrupts() { armed.store(false); }

std::string CommittedDespite(int signal) {
  return SignalName(signal) + " arrived during the commit, which was completed";
}

std::string SignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal " + std::to_string(signal);
  }
}

}  // namespace dsanalyze
