target_sources(dsanalyze_lib_synth PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/token_generator.cc)
