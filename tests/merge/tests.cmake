# dsanalyze merge: sample_range shards merged equal the whole run, byte for byte.
dsanalyze_add_mpi_test(NAME merge.run RANKS 1 2 TIMEOUT 300
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/merge_run_test.sh)

# Inputs merge refuses: one error line, exit 2, nothing at --out.
add_test(NAME merge.bad_input COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/merge_bad_input_test.sh)
set_tests_properties(merge.bad_input PROPERTIES TIMEOUT 300
  ENVIRONMENT "DSANALYZE=$<TARGET_FILE:dsanalyze>")
