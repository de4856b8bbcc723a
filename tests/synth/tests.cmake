# synth: the synthetic token datasets of `dsanalyze generate` (lib/synth/).
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/token_generator_test.cc)
