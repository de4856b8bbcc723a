// Refuses to run when the launcher started several tasks that MPI did not join
// into one job.
//
// Under `srun --mpi=none` (or a Slurm site whose MpiDefault is none), or when
// an MPICH build is started by another MPI's mpirun, every task initializes
// MPI alone as a one-rank job. Each would then run the whole analysis and
// write the same files at the same time. The launcher's environment still
// says how many tasks it started, so a mismatch with MPI_Comm_size is caught
// right after MPI_Init.
//
// The rule (docs/cluster.md): ask the launcher that started THIS process how
// many tasks it started, nearest launcher first, and refuse if that is more
// than the MPI world size:
//   1. PMI_SIZE, when PMI_RANK is set too: MPICH's mpirun (hydra) and
//      `srun --mpi=pmi2` hand these to each rank.
//   2. else OMPI_COMM_WORLD_SIZE, when OMPI_COMM_WORLD_RANK is set too: Open
//      MPI's mpirun, which cannot start an MPICH build as one job.
//   3. else SLURM_STEP_NUM_TASKS, when SLURM_PROCID is set too: srun started
//      this process directly without a PMI our MPI speaks (--mpi=none).
// SLURM_NTASKS is never used: it describes the allocation, and a batch script
// of `#SBATCH -n 2` sees SLURM_NTASKS=2 even when it runs dsanalyze as one
// process or through mpirun (whose ranks see PMI_SIZE and a one-task step per
// node). Unparsable values are ignored.
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
