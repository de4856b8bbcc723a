// One main for every MPI test program. A test file defines its suite with
//
//   DSA_MPI_SUITE(sample_sort) { ... checks on `comm` (mpi_check.h) ... }
//
// and `mpiexec -n k mpi_tests sample_sort` runs it on k ranks: the main
// (mpi_test_main.cc) initialises MPI once, runs the named suite on every rank,
// prints one line from rank 0 and exits 0 only when every check passed on
// every rank. An unknown or missing suite name exits 2, listing the known ones.
//
// Suites register themselves before main runs (static initialisers); each is
// collective: every rank runs the same suite with the same checks in order.
#pragma once

#include "comm/comm.h"
#include "support/mpi_check.h"

namespace dsanalyze::test {

using MpiSuiteBody = void (*)(const Comm& comm);

// Adds a suite to the program's list; returns true, for a static initialiser.
bool RegisterMpiSuite(const char* name, MpiSuiteBody body);

}  // namespace dsanalyze::test

#define DSA_MPI_SUITE(name)                                            \
  static void DsaMpiSuite_##name(const ::dsanalyze::Comm& comm);       \
  [[maybe_unused]] static const bool dsa_mpi_suite_registered_##name = \
      ::dsanalyze::test::RegisterMpiSuite(#name, &DsaMpiSuite_##name); \
  static void DsaMpiSuite_##name(const ::dsanalyze::Comm& comm)
