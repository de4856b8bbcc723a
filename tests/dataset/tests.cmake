target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/documents_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_mod_test.cc)
