// Refuses to run when the launcher started several tasks that MPI did not join
// into one job.
//
// Why: under `srun --mpi=none` (or a Slurm site whose MpiDefault is none), or
// when another MPI's mpirun starts this MPICH build, every task initializes
// MPI alone as a one-rank job; each would run the whole analysis and write the
// same files at the same time. The launcher's environment still says how many
// tasks it started, so the mismatch is caught right after MPI_Init.
//
// The launcher asked is the nearest one that announces itself with both its
// rank and its size variable (MPICH/PMI, then Open MPI, then srun); the
// allocation's size (SLURM_NTASKS) never counts, and unparsable values are
// ignored. docs/cluster.md ("The launch-mode guard") lists the variables and
// what each way of starting dsanalyze looks like.
//
// Thread-safety: reads the environment; call it before starting threads.
#pragma once

#include <optional>

#include "util/status.h"

namespace dsanalyze {

// OK when no launcher says it started more than `mpi_size` tasks; otherwise
// BadInput with one line naming the variable, both counts and the fix
// (`srun --mpi=pmi2` or `mpirun`).
Status CheckLaunchMode(int mpi_size);

// This task's rank as the launcher that started it tells it (the same
// launchers in the same order: PMI_RANK, OMPI_COMM_WORLD_RANK, SLURM_PROCID),
// or nullopt when none did. Usable before MPI_Init, e.g. to let only rank 0
// print a command-line error.
std::optional<int> LauncherRank();

}  // namespace dsanalyze
