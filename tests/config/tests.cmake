target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/byte_size_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/dataset_types_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/load_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_budget_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_config_test.cc)
