target_sources(dsanalyze_lib_output PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analysis_layout.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_folder.cc
  ${CMAKE_CURRENT_LIST_DIR}/index_files_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/analysis_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/commit_recovery.cc
  ${CMAKE_CURRENT_LIST_DIR}/finish_analysis.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_value_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/output_paths.cc
  ${CMAKE_CURRENT_LIST_DIR}/save_lock.cc)
