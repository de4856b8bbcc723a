target_sources(dsanalyze_lib_format PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/dtype.cc
  ${CMAKE_CURRENT_LIST_DIR}/indexed_dataset.cc
  ${CMAKE_CURRENT_LIST_DIR}/indexed_writer.cc
  ${CMAKE_CURRENT_LIST_DIR}/jsonl_scores.cc)
target_sources(dsanalyze_lib_format PRIVATE ${CMAKE_CURRENT_LIST_DIR}/npy.cc
  ${CMAKE_CURRENT_LIST_DIR}/npy_writer.cc)
