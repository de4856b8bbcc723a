# check: verify and compare of analysis outputs (lib/check/).
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compare_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify_test.cc)
