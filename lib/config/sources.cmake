target_sources(dsanalyze_lib_config PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/byte_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/config.cc
  ${CMAKE_CURRENT_LIST_DIR}/dataset_types.cc
  ${CMAKE_CURRENT_LIST_DIR}/json_fields.cc
  ${CMAKE_CURRENT_LIST_DIR}/load_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_budget.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_config.cc)
