target_sources(dsanalyze_lib_util PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/closest_name.cc
  ${CMAKE_CURRENT_LIST_DIR}/exception_status.cc
  ${CMAKE_CURRENT_LIST_DIR}/fault_point.cc
  ${CMAKE_CURRENT_LIST_DIR}/terminal.cc
  ${CMAKE_CURRENT_LIST_DIR}/file_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/huge_pages.cc
  ${CMAKE_CURRENT_LIST_DIR}/interrupt.cc
  ${CMAKE_CURRENT_LIST_DIR}/memory_usage.cc
  ${CMAKE_CURRENT_LIST_DIR}/progress.cc
  ${CMAKE_CURRENT_LIST_DIR}/scratch_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/stage_clock.cc
  ${CMAKE_CURRENT_LIST_DIR}/temp_lease.cc
  ${CMAKE_CURRENT_LIST_DIR}/write_behind.cc)
