# util: background writes, input files, file helpers, "did you mean" hints and interruption by
# signals.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/checked_add_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/closest_name_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/input_file_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/interrupt_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/stage_clock_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/temp_lease_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/worker_thread_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/write_behind_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/ordered_double_test.cc)
