// A fresh temporary directory for a test under mpiexec: rank 0 makes it, every
// rank gets its name. Empty on every rank when it could not be made. The test
// removes it (rank 0) when done.
#pragma once

#include <mpi.h>
#include <stdlib.h>  // mkdtemp

#include <cstdio>
#include <filesystem>
#include <string>

#include "comm/comm.h"

namespace dsanalyze::test {

inline std::string MakeSharedTempDir(const Comm& comm, const std::string& prefix) {
  char name[256] = {};
  if (comm.is_root()) {
    const std::string templ = std::filesystem::temp_directory_path() / (prefix + ".XXXXXX");
    std::snprintf(name, sizeof(name), "%s", templ.c_str());
    if (mkdtemp(name) == nullptr) name[0] = '\0';
  }
  MPI_Bcast(name, sizeof(name), MPI_CHAR, 0, comm.raw());
  return name;
}

}  // namespace dsanalyze::test
