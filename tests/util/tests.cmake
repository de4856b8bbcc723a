# util: background writes, file helpers and "did you mean" hints.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/closest_name_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/write_behind_test.cc)
