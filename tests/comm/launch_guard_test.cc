// CheckLaunchMode against the environments that real launchers set (recorded
// on Slurm 22.05 and MPICH 4.0.2 hydra; see docs/cluster.md).
#include "comm/launch_guard.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dsanalyze {
namespace {

// Sets the given variables and clears every other launcher variable; restores
// all of them on destruction.
class LauncherEnv {
 public:
  explicit LauncherEnv(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const char* name : kNames) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      unsetenv(name);
    }
    for (const auto& [name, value] : vars) setenv(name, value, 1);
  }
  ~LauncherEnv() {
    for (const auto& [name, value] : saved_) {
      if (value)
        setenv(name, value->c_str(), 1);
      else
        unsetenv(name);
    }
  }

 private:
  static constexpr const char* kNames[] = {
      "PMI_SIZE",     "PMI_RANK",     "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
      "SLURM_NTASKS", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

TEST_CASE("launch guard: no launcher at all is a plain one-rank run") {
  LauncherEnv env({});
  CHECK(CheckLaunchMode(1).ok());
}

TEST_CASE("launch guard: srun --mpi=none with two tasks is refused") {
  // What each task of `srun --mpi=none -n 2` sees; MPI makes each a world of 1.
  LauncherEnv env({{"SLURM_NTASKS", "2"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}});
  const Status st = CheckLaunchMode(1);
  REQUIRE(!st.ok());
  CHECK(st.exit_code() == kExitBadInput);
  CHECK_THAT(st.message(), Catch::Contains("SLURM_STEP_NUM_TASKS=2"));
  CHECK_THAT(st.message(), Catch::Contains("srun --mpi=pmi2"));
  CHECK_THAT(st.message(), Catch::Contains("mpirun"));
}

TEST_CASE("launch guard: srun --mpi=pmi2 that MPI joined is accepted") {
  LauncherEnv env({{"SLURM_NTASKS", "2"},
                   {"SLURM_STEP_NUM_TASKS", "2"},
                   {"SLURM_PROCID", "0"},
                   {"PMI_SIZE", "2"},
                   {"PMI_RANK", "0"}});
  CHECK(CheckLaunchMode(2).ok());
}

TEST_CASE("launch guard: PMI that MPI did not use is refused") {
  LauncherEnv env({{"PMI_SIZE", "4"}, {"PMI_RANK", "3"}});
  const Status st = CheckLaunchMode(1);
  REQUIRE(!st.ok());
  CHECK_THAT(st.message(), Catch::Contains("PMI_SIZE=4"));
}

TEST_CASE("launch guard: a batch script's allocation alone is no evidence") {
  // `#SBATCH -n 2`, dsanalyze run directly as one process: no step variables.
  LauncherEnv env({{"SLURM_NTASKS", "2"}, {"SLURM_PROCID", "0"}});
  CHECK(CheckLaunchMode(1).ok());
}

TEST_CASE("launch guard: mpirun inside an allocation is judged by its PMI") {
  // hydra starts one proxy per node through a one-task srun step; its ranks
  // see PMI_SIZE of the whole job, and may be fewer than the allocation.
  SECTION("mpirun -n 1 in a 2-task allocation") {
    LauncherEnv env({{"SLURM_NTASKS", "2"},
                     {"SLURM_STEP_NUM_TASKS", "1"},
                     {"SLURM_PROCID", "0"},
                     {"PMI_SIZE", "1"},
                     {"PMI_RANK", "0"}});
    CHECK(CheckLaunchMode(1).ok());
  }
  SECTION("mpirun -n 4 over two nodes") {
    LauncherEnv env({{"SLURM_NTASKS", "2"},
                     {"SLURM_STEP_NUM_TASKS", "2"},
                     {"SLURM_PROCID", "1"},
                     {"PMI_SIZE", "4"},
                     {"PMI_RANK", "3"}});
    CHECK(CheckLaunchMode(4).ok());
  }
}

TEST_CASE("launch guard: Open MPI's mpirun starting an MPICH build is refused") {
  LauncherEnv env({{"OMPI_COMM_WORLD_SIZE", "3"}, {"OMPI_COMM_WORLD_RANK", "0"}});
  const Status st = CheckLaunchMode(1);
  REQUIRE(!st.ok());
  CHECK_THAT(st.message(), Catch::Contains("OMPI_COMM_WORLD_SIZE=3"));
  CHECK_THAT(st.message(), Catch::Contains("mpiexec.mpich"));
}

TEST_CASE("launch guard: the nearest launcher decides") {
  // `srun -n 2 mpirun -n 1 dsanalyze`: hydra's PMI is nearer than srun's step.
  LauncherEnv env(
      {{"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "1"}, {"PMI_SIZE", "1"}, {"PMI_RANK", "0"}});
  CHECK(CheckLaunchMode(1).ok());
}

TEST_CASE("launch guard: a size without its rank variable, or garbage, is skipped") {
  SECTION("no rank variable") {
    LauncherEnv env({{"SLURM_STEP_NUM_TASKS", "8"}, {"PMI_SIZE", "8"}});
    CHECK(CheckLaunchMode(1).ok());
  }
  SECTION("unparsable counts fall through to the next launcher") {
    LauncherEnv env({{"PMI_SIZE", "2x"},
                     {"PMI_RANK", "0"},
                     {"OMPI_COMM_WORLD_SIZE", ""},
                     {"OMPI_COMM_WORLD_RANK", "0"},
                     {"SLURM_STEP_NUM_TASKS", "3"},
                     {"SLURM_PROCID", "0"}});
    const Status st = CheckLaunchMode(1);
    REQUIRE(!st.ok());
    CHECK_THAT(st.message(), Catch::Contains("SLURM_STEP_NUM_TASKS=3"));
  }
}

TEST_CASE("launcher rank: the nearest launcher's rank, before MPI_Init") {
  {
    LauncherEnv env({});
    CHECK(LauncherRank() == std::nullopt);
  }
  {
    // srun --mpi=pmi2: PMI_RANK wins over SLURM_PROCID.
    LauncherEnv env({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}, {"SLURM_PROCID", "0"}});
    CHECK(LauncherRank() == 1);
  }
  {
    LauncherEnv env({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}});
    CHECK(LauncherRank() == 0);
  }
  {
    // An unparsable value is ignored; the next launcher answers.
    LauncherEnv env({{"PMI_RANK", "x"}, {"SLURM_PROCID", "3"}});
    CHECK(LauncherRank() == 3);
  }
}

}  // namespace
}  // namespace dsanalyze
