target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_layout_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_commit_test.cc)
