target_sources(dsanalyze_lib_dataset PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/blend_index.cc
  ${CMAKE_CURRENT_LIST_DIR}/documents.cc
  ${CMAKE_CURRENT_LIST_DIR}/gpt_maps.cc
  ${CMAKE_CURRENT_LIST_DIR}/megatron_blend.cc
  ${CMAKE_CURRENT_LIST_DIR}/megatron_core.cc
  ${CMAKE_CURRENT_LIST_DIR}/megatron_gpt.cc
  ${CMAKE_CURRENT_LIST_DIR}/open_dataset.cc
  ${CMAKE_CURRENT_LIST_DIR}/packed.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_ids.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_mod.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_files.cc)
