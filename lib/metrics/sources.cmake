target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry.cc
  ${CMAKE_CURRENT_LIST_DIR}/seqlen_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/single_values.cc
  ${CMAKE_CURRENT_LIST_DIR}/sum_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_metric.cc)
