#include "comm/launch_guard.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace dsanalyze {
namespace {

// How one launcher announces itself to each task it starts.
struct Launcher {
  const char* size_var;  // its count of tasks
  const char* rank_var;  // set alongside: this task was started by that launcher
  const char* who;       // for the message
  const char* fix;       // for the message
};

// Nearest launcher first: the one that started THIS process knows how many
// tasks it started (docs/cluster.md, "The launch-mode guard").
constexpr Launcher kLaunchers[] = {
    {"PMI_SIZE", "PMI_RANK", "the launcher's PMI",
     "start it with MPICH's mpirun or `srun --mpi=pmi2`"},
    {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "Open MPI's mpirun",
     "this dsanalyze uses MPICH: start it with MPICH's mpirun (mpiexec.mpich) or "
     "`srun --mpi=pmi2`"},
    {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "srun",
     "start it with `srun --mpi=pmi2` or with `mpirun` inside the allocation"},
};

// The variable's value when it is an integer of at least `min`.
std::optional<int> IntEnv(const char* name, int min) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view s(text);
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < min) return std::nullopt;
  return value;
}

}  // namespace

Status CheckLaunchMode(int mpi_size) {
  for (const Launcher& l : kLaunchers) {
    if (std::getenv(l.rank_var) == nullptr) continue;
    const std::optional<int> tasks = IntEnv(l.size_var, 1);
    if (!tasks) continue;
    if (*tasks <= mpi_size) return Status::OK();
    return Status::BadInput(
        std::string(l.who) + " started " + std::to_string(*tasks) + " tasks (" + l.size_var + "=" +
        std::to_string(*tasks) + ") but MPI joined only " + std::to_string(mpi_size) +
        ", so each task would run the whole analysis and write the same files: " + l.fix +
        " (see docs/cluster.md)");
  }
  return Status::OK();
}

std::optional<int> LauncherRank() {
  for (const Launcher& l : kLaunchers)
    if (std::optional<int> rank = IntEnv(l.rank_var, 0)) return rank;
  return std::nullopt;
}

}  // namespace dsanalyze
