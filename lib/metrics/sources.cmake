target_sources(dsanalyze_lib_metrics PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/exact_sum.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_library.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/rarity.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/seqlen_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/single_values.cc
  ${CMAKE_CURRENT_LIST_DIR}/sum_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_quality.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_metric.cc
  ${CMAKE_CURRENT_LIST_DIR}/vocab_metrics.cc
  ${CMAKE_CURRENT_LIST_DIR}/word_sums.cc)
