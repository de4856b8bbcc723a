# util: background writes and file helpers.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/write_behind_test.cc)
