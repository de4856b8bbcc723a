# cli: the command line itself (parse errors, hints) under mpiexec.
dsanalyze_add_mpi_test(NAME cli.parse_errors RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/parse_errors_test.sh)
