# A metric's files written from sorted keys or grouped ids: rank 0 writing
# what the ranks stream to it (gather_write), or every rank writing its own
# groups (group_write) or its own rows of sample_to_metric (scalar_rows).
target_sources(dsanalyze_lib_index PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/gather_write.cc
  ${CMAKE_CURRENT_LIST_DIR}/group_write.cc
  ${CMAKE_CURRENT_LIST_DIR}/scalar_rows.cc)
