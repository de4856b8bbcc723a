// SIGINT, SIGTERM and SIGHUP as a request to stop the run cleanly.
//
// Ctrl-C reaches every rank (MPICH's mpiexec forwards SIGINT and SIGTERM to
// all of them; Slurm's scancel sends SIGTERM to every task). Dying at once
// would leave the staging directory behind and let mpiexec report whatever
// mix of signals and exit codes its ranks ended with (0 included). Instead the
// handler only records the signal; the run notices it at its checkpoints (the
// collective status agreements of Comm::AgreeOnStatus, each map batch, each
// write chunk) and turns it into Status::Interrupted, which every rank agrees
// on at the same checkpoint. The run then removes its staging directory,
// releases the save path's lock, rank 0 prints one line and every rank exits
// with 128 + the signal number (130 SIGINT, 143 SIGTERM, 129 SIGHUP), as a
// shell reports a process killed by that signal.
//
// The commit is never cut in half: once every rank has passed the last
// checkpoint before it, DisarmInterrupts() makes CheckInterrupt() return OK,
// so a signal that arrives during the commit lets it finish and the run exits
// 0 with its output in place (docs/reliability.md, "Interruption").
//
// Thread-safety: the handler only stores into a lock-free atomic
// (async-signal-safe); every function may be called from any thread.
#pragma once

#include <signal.h>

#include <string>

#include "util/status.h"

namespace dsanalyze {

// Installs the handler for SIGINT, SIGTERM and SIGHUP (SA_RESTART, so file
// I/O in progress is not cut short), and arms CheckInterrupt(): a command
// starts armed, whatever an earlier one in this process disarmed. Only the
// first signal is kept.
void InstallInterruptHandlers();

// The first signal caught so far, or 0. Unaffected by DisarmInterrupts().
int CaughtSignal();

// Names the stage the run is in ("map", "write", ...) for the message. The
// string must be static.
void SetInterruptStage(const char* stage);

// OK unless a signal was caught and interrupts are armed: then
// Status::Interrupted with "interrupted by SIGINT during <stage>; nothing was
// committed".
Status CheckInterrupt();

// From now on CheckInterrupt() returns OK: the run is committing its output.
void DisarmInterrupts();

// "SIGINT", "SIGTERM", "SIGHUP" (else "signal N").
std::string SignalName(int signal);

// What a command says of `signal` caught after DisarmInterrupts(): "SIGINT
// arrived during the commit, which was completed".
std::string CommittedDespite(int signal);

// While alive, SIGINT, SIGTERM and SIGHUP are blocked in the calling thread;
// the destructor restores its previous mask. Used by StartWorkerThread
// (util/worker_thread.h).
class InterruptsBlocked {
 public:
  InterruptsBlocked();
  ~InterruptsBlocked();
  InterruptsBlocked(const InterruptsBlocked&) = delete;
  InterruptsBlocked& operator=(const InterruptsBlocked&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace dsanalyze
