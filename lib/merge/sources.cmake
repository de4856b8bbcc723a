target_sources(dsanalyze_lib_merge PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/merge.cc
  ${CMAKE_CURRENT_LIST_DIR}/merge_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/merge_metric.cc)
