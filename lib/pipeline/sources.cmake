target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/local_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/map.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_commit.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/reduce.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/save_lock.cc
  ${CMAKE_CURRENT_LIST_DIR}/dependencies.cc)
