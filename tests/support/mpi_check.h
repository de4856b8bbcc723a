// Checks for test programs that run under mpiexec: a check fails when it fails
// on any rank (so every rank agrees and main's exit code is the same on all),
// and each rank where it failed prints it. Collective: every rank must make the
// same checks in the same order.
#pragma once

#include <cstdio>
#include <string>

#include "comm/comm.h"

namespace dsanalyze::test {

// Checks that failed on some rank; main returns non-zero when there are any.
inline int mpi_check_failures = 0;

inline void Check(const Comm& comm, bool ok, const std::string& what) {
  const int all_ok = comm.Allreduce(ok ? 1 : 0, MPI_MIN);
  if (!all_ok) {
    if (!ok) std::fprintf(stderr, "rank %d: FAILED: %s\n", comm.rank(), what.c_str());
    ++mpi_check_failures;
  }
}

}  // namespace dsanalyze::test
