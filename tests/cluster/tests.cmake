# Real cluster runs (docs/cluster.md). They need root: without it, or without
# namespaces, they exit 77 and ctest reports them skipped. They take turns
# (RESOURCE_LOCK): each starts daemons or namespaces and times its launches.
set(_cluster_env
  "DSANALYZE=$<TARGET_FILE:dsanalyze>;MPIEXEC=${MPIEXEC_BIN};SOURCE_DIR=${PROJECT_SOURCE_DIR}")

# A one-node Slurm cluster (munged, slurmctld, slurmd on loopback): sbatch with
# scripts/slurm/dsanalyze.sbatch and srun --mpi=pmi2 match mpiexec byte for
# byte; srun --mpi=none is refused. May apt-get install slurm-wlm and munge.
add_test(NAME cluster.slurm COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/slurm_test.sh)

# Simulated hosts (network, UTS, mount namespaces; hydra through an ssh
# stand-in): three hosts with a save path only host 0 has, and two hosts with
# their own PID and IPC namespaces so that MPI data crosses the bridge by TCP.
add_test(NAME cluster.hosts3 COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hosts_test.sh three)
add_test(NAME cluster.hosts_tcp COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hosts_test.sh tcp)

set_tests_properties(cluster.slurm PROPERTIES TIMEOUT 300)
set_tests_properties(cluster.hosts3 cluster.hosts_tcp PROPERTIES TIMEOUT 120)
set_tests_properties(cluster.slurm cluster.hosts3 cluster.hosts_tcp PROPERTIES
  LABELS cluster
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK dsanalyze_cluster
  ENVIRONMENT "${_cluster_env}")
