// Getting an interrupted run's exit code through MPICH 4.0's mpiexec.
//
// When hydra's mpiexec forwards SIGINT or SIGTERM to the ranks, its proxy in
// MPICH before 4.1 marks the job as "forced cleanup" and then reports exit
// status 0 for every rank it did not reap while some rank's stdout or stderr
// was still open (the proxy reaps only when an output event wakes it). The
// last rank to close its output is never reaped in time, so `mpiexec -n 1`
// always exits 0 after Ctrl-C and larger jobs often do, whatever the ranks
// returned. Fixed upstream in MPICH 4.1 (pmodels/mpich ed7e86a26a, "hydra:
// remove forced_cleanup in proxy"); Debian 12 ships 4.0.2.
//
// The workaround: rank 0's last line is written by a child process that
// keeps rank 0's stdout and stderr open until rank 0 has exited. The line is
// then an output event on an open stream after rank 0 became a zombie, so the
// proxy reaps rank 0 with its real status and mpiexec's exit code (the OR of
// all ranks' statuses) carries it. Harmless with a fixed mpiexec: it waits
// for the streams to close, so the line still comes before mpiexec returns.
#pragma once

#include <string>

namespace dsanalyze {

// True when hydra's mpiexec started this process (it sets MPI_LOCALNRANKS;
// srun and a singleton do not).
bool StartedByHydra();

// Writes `line` to stderr from a forked child once this process has exited
// (polled for at most 2 s), or at once if fork fails. Call it last, after
// MPI_Finalize, and return from main right after.
void PrintAfterExit(const std::string& line);

}  // namespace dsanalyze
