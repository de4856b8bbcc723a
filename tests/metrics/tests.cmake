target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/builtin_metrics_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry_test.cc)
