# cli: the subcommands as a user runs them (the real binary): inspect, generate,
# verify and compare exit codes and output.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/command_output_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/command_table_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/generate_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/inspect_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify_compare_test.cc)
# command_table_test.cc reads the table of apps/dsanalyze.
target_link_libraries(unit_tests PRIVATE dsanalyze_cli)

# The command line itself (parse errors, hints) under mpiexec.
dsanalyze_add_mpi_test(NAME cli.parse_errors RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/parse_errors_test.sh)
# Every INT/UINT option of every command (read from --help) refuses a value
# past its type with one line, exit 2, instead of CLI11's clamping.
dsanalyze_add_mpi_test(NAME cli.integer_options RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/integer_options_test.py)
