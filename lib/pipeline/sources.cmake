target_sources(dsanalyze_lib_pipeline PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/accumulate_job.cc
  ${CMAKE_CURRENT_LIST_DIR}/dependencies.cc
  ${CMAKE_CURRENT_LIST_DIR}/global_reduce.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_path.cc
  ${CMAKE_CURRENT_LIST_DIR}/map.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_jobs.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/rank_bins.cc
  ${CMAKE_CURRENT_LIST_DIR}/rank_sums.cc
  ${CMAKE_CURRENT_LIST_DIR}/run_state.cc
  ${CMAKE_CURRENT_LIST_DIR}/single_value_job.cc)
