# dsanalyze curriculum (the schedule model, the config reader, the replay) and
# dsanalyze order.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ds_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/ds_json_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/row_cursors_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_test.cc)

# The --json replay against an independent Python replay of DeepSpeed's
# sampler on a real analysis (the analysis run uses mpiexec -n 1; the
# subcommand itself is not MPI).
dsanalyze_add_mpi_test(NAME curriculum.replay_reference RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/replay_reference_test.py)
# Bad DeepSpeed configs and options: one error line, exit 2, nothing written
# (the rules of tests/reliability/bad_input_test.py, for this subcommand).
dsanalyze_add_mpi_test(NAME curriculum.bad_config RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/bad_config_test.py)

# What the subcommand prints and how it exits: grouped findings and their
# severities, --strict, the default step count, --json -, the legacy section.
dsanalyze_add_mpi_test(NAME curriculum.cli RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli_test.py)

# An analysis at NP ranks, then orders checked against an independent Python
# computation of docs/format.md (the same bytes for any NP).
dsanalyze_add_mpi_test(NAME curriculum.order_run RANKS 1 2 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/order_run_test.py)
# Bad input: one error line, exit 2, nothing written at --out.
dsanalyze_add_mpi_test(NAME curriculum.order_bad_input RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/order_bad_input_test.py)

# dsanalyze order killed (SIGKILL), signalled (SIGINT, SIGTERM) at each write
# step, and on a full disk (docs/reliability.md, "order and batches").
foreach(mode kill signals disk_full)
  dsanalyze_add_mpi_test(NAME curriculum.order_faults_${mode} RANKS 2 TIMEOUT 300
    LABELS reliability
    COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/reliability/command_faults_test.py order ${mode})
endforeach()
set_tests_properties(curriculum.order_faults_disk_full.np2 PROPERTIES SKIP_RETURN_CODE 77)
