target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cli_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_fixture.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify_test.cc)
