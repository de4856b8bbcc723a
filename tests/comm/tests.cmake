# The launch-mode guard (lib/comm/launch_guard.h) against recorded launcher environments.
target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/launch_guard_test.cc)

# Oversubscription (lib/comm/oversubscription.h): under `taskset -c 0` every
# rank has one core, so NP > 1 ranks must give one warning line (naming the
# MPICH yield setting it applied) and NP = 1 none, whatever the machine's size.
dsanalyze_add_mpi_test(NAME comm.oversubscription RANKS 1 2 3 TIMEOUT 120
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/oversubscription_test.sh)
set_tests_properties(comm.oversubscription.np1 comm.oversubscription.np2
  comm.oversubscription.np3 PROPERTIES SKIP_RETURN_CODE 77)

# Comm's collectives, blocking and yielding: right results on every rank, and
# data-sized counts reach MPI's large-count calls whole (comm_mpi_test.cc).
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/comm_mpi_test.cc)
dsanalyze_add_mpi_test(NAME comm.collectives RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> collectives
  SANITIZED_RANKS 3)

# AgreeOnStatus on its own: all OK; one failing rank (each in turn, each kind)
# reaches every rank with code, message and signal; the lowest failing rank
# wins; a caught signal counts as Interrupted until DisarmInterrupts().
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/agree_on_status_mpi_test.cc)
dsanalyze_add_mpi_test(NAME comm.agree_on_status RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> agree_on_status
  SANITIZED_RANKS 3)
