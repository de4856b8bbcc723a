target_sources(dsanalyze_lib_report PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/chart_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/rank_correlation.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_summary.cc
  ${CMAKE_CURRENT_LIST_DIR}/report.cc
  ${CMAKE_CURRENT_LIST_DIR}/run_digest.cc
  ${CMAKE_CURRENT_LIST_DIR}/run_page.cc)
