// Whether what this process writes to stderr ends up on a terminal.
//
// Under MPICH's mpiexec (hydra) a rank's stderr is a pipe to hydra_pmi_proxy,
// whose stderr is a pipe to mpiexec, whose stderr is the user's terminal; each
// forwards partial lines as they come, so a `\r` progress line works there
// too. The ranks run in sessions of their own (hydra calls setsid), so
// /dev/tty cannot be opened and isatty(2) is false: the chain of pipes has to
// be followed instead. Measured with hydra 4.0.2 under `script`.
//
// StderrReachesTerminal() is true when
//   1. stderr is a terminal, or
//   2. following stderr's pipe to its reader, parent by parent, through MPI
//      launcher processes only (mpiexec, mpirun, hydra_pmi_proxy, orted, ...
//      that hold the other end of the pipe), reaches one whose stderr is a
//      terminal. Any other reader stops the walk: `| tee log`, a file, ctest
//      or a test script capturing output, a remote launcher — the output goes
//      to a log, not a screen, and must not fill up with `\r` redraws.
// A remote launcher (srun from a login node) cannot be followed: there
// `--progress always` logs plain lines. Linux /proc only; elsewhere rule 2
// finds nothing. Reads /proc; thread-compatible.
#pragma once

namespace dsanalyze {

bool StderrReachesTerminal();

}  // namespace dsanalyze
