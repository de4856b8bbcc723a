target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_layout_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_files_writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_files_test.cc)

# output.files: each chosen subset writes exactly its files, byte-identical to
# an all-files run; verify and compare name the files skipped by choice.
dsanalyze_add_mpi_test(NAME output.chosen_files RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/chosen_files_test.sh)

# output.dtype_codes "deepspeed-legacy" end to end: the run, verify, compare,
# curriculum, order and merge read it, and its codes are DeepSpeed's legacy
# table's (decoded in the test from DeepSpeed's facts).
dsanalyze_add_mpi_test(NAME output.legacy_codes RANKS 1 2 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/legacy_codes_test.py)

# output.files downstream: the statistics note, the log, order, curriculum and
# merge name the outputs left out; compare with nothing in common is not equal.
dsanalyze_add_mpi_test(NAME output.left_out RANKS 1 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/left_out_test.sh)
