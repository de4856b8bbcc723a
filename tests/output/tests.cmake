target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_layout_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_files_writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_commit_test.cc)

# output.files: each chosen subset writes exactly its files, byte-identical to
# an all-files run; verify and compare name the files skipped by choice.
dsanalyze_add_mpi_test(NAME output.chosen_files RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/chosen_files_test.sh)
