target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/token_generator.cc)
