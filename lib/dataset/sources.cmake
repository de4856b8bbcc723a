target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/documents.cc
  ${CMAKE_CURRENT_LIST_DIR}/open_dataset.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_mod.cc)
