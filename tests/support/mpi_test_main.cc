// The main of tests/mpi_tests (support/mpi_suite.h): runs one registered suite
// on every rank of the job and folds every rank's checks into the exit code.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "comm/oversubscription.h"
#include "support/mpi_suite.h"

namespace dsanalyze::test {
namespace {

struct MpiSuite {
  const char* name;
  MpiSuiteBody body;
};

std::vector<MpiSuite>& Suites() {
  static std::vector<MpiSuite> suites;
  return suites;
}

const MpiSuite* FindSuite(const char* name) {
  for (const MpiSuite& s : Suites())
    if (std::strcmp(s.name, name) == 0) return &s;
  return nullptr;
}

std::string SuiteNames() {
  std::string names;
  for (const MpiSuite& s : Suites()) names += std::string(names.empty() ? "" : ", ") + s.name;
  return names;
}

}  // namespace

bool RegisterMpiSuite(const char* name, MpiSuiteBody body) {
  Suites().push_back({name, body});
  return true;
}

}  // namespace dsanalyze::test

int main(int argc, char** argv) {
  using namespace dsanalyze;
  const auto* suite = argc == 2 ? test::FindSuite(argv[1]) : nullptr;
  if (!suite) {
    std::fprintf(stderr, "usage: mpiexec -n K %s SUITE, SUITE one of: %s\n", argv[0],
                 test::SuiteNames().c_str());
    return 2;
  }
  MpiEnvironment env(&argc, &argv);
  const Comm comm;
  // Waiting ranks wait as the tool's would (DSANALYZE_WAIT, which the suite
  // sets to yield: tests/CMakeLists.txt).
  const Result<WaitPolicy> wait = WaitPolicyFromEnv();
  HandleOversubscription(comm, false, wait.ok() ? *wait : WaitPolicy::kAuto);
  suite->body(comm);
  if (comm.is_root())
    std::printf("%s on %d ranks: %s\n", suite->name, comm.size(),
                test::mpi_check_failures ? "FAILED" : "all checks passed");
  return test::mpi_check_failures ? 1 : 0;
}
