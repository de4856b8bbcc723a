// Test-only pause points for the fault-injection tests
// (tests/reliability/fault_test.sh). Not a user feature: nothing documented
// for users sets these variables.
//
// A test sets
//   DSANALYZE_TEST_PAUSE_AT=<point>:<rank>   e.g. "exchange:1"
//   DSANALYZE_TEST_PAUSE_FILE=<path>         (optional)
// and the first call of FaultPoint("<point>") in MPI rank <rank> (read from
// PMI_RANK, which hydra's mpiexec and `srun --mpi=pmi2` set; 0 when unset)
// writes that process's pid to <path> (under a temporary name, then renamed,
// so the test never reads half a pid), prints one line to stderr and stops the
// whole process with SIGSTOP. The test then kills it from outside (SIGKILL:
// "a rank dies here", deterministically) or lets it go on (SIGCONT).
//
// Points: "map" (after a worker's first batch), "sort" (before the first local
// sort), "exchange" (just before the sample sort's Alltoallv), "write" (rank 0:
// after the first chunk received from rank 1 went into the staged index files;
// other ranks: before streaming their keys to rank 0), and on rank 0 only
// "report" (reports written, before the last interruption checkpoint) and
// "commit" (after the first metric directory was swapped with its previous
// version).
//
// Cost when unset: the environment is read once (first call); later calls
// test one bool. Thread-safe: only one call per process ever pauses.
#pragma once

namespace dsanalyze {

void FaultPoint(const char* point);

}  // namespace dsanalyze
