target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/output_commit_test.cc)
