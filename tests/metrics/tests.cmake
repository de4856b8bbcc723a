target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/builtin_metrics_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/exact_sum_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/plugin_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/registry_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_metric_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_quality_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/vocab_metrics_test.cc)

# Deliberately broken plugins, one way each (plugin_test.cc).
foreach(plugin bad_abi bad_table faulty no_register)
  add_library(test_plugin_${plugin} MODULE ${CMAKE_CURRENT_LIST_DIR}/plugins/${plugin}_plugin.cc)
  target_include_directories(test_plugin_${plugin} PRIVATE ${PROJECT_SOURCE_DIR}/lib/include)
  set_target_properties(test_plugin_${plugin} PROPERTIES CXX_VISIBILITY_PRESET hidden)
  string(TOUPPER ${plugin} upper)
  target_compile_definitions(unit_tests PRIVATE
    DSANALYZE_TEST_PLUGIN_${upper}="$<TARGET_FILE:test_plugin_${plugin}>")
  add_dependencies(unit_tests test_plugin_${plugin})
endforeach()
target_compile_definitions(unit_tests PRIVATE
  DSANALYZE_EXAMPLE_PLUGIN="$<TARGET_FILE:dsanalyze_example_plugin>")
add_dependencies(unit_tests dsanalyze_example_plugin)

# The golden tokens end to end: seqlen, total_vocab_freq and vocab_rarity
# byte-identical to DeepSpeed's, also vocab_rarity alone and from a file.
dsanalyze_add_mpi_test(NAME metrics.vocab_golden RANKS 1 2 3 TIMEOUT 300
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/vocab_golden_test.sh)

# The example plugin in a run, and plugin errors through the command line.
dsanalyze_add_mpi_test(NAME metrics.plugin_run RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/plugin_run_test.sh
          $<TARGET_FILE:dsanalyze_example_plugin> $<TARGET_FILE:test_plugin_faulty>)

# docs/plugins.md's complete minimal example compiles and runs as documented.
dsanalyze_add_mpi_test(NAME metrics.plugin_docs RANKS 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/plugin_docs_test.sh)

# configs/tokens_vocab.json and configs/plugin.json run as written.
dsanalyze_add_mpi_test(NAME metrics.configs RANKS 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/configs_test.sh)

# The score metric end to end against an independent Python computation
# (score_run_test.py), byte-identical for 1 and 2 threads.
dsanalyze_add_mpi_test(NAME metrics.score_run RANKS 1 2 3 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/score_run_test.py)

# unique_token_ratio, token_entropy and repeated_ngram_ratio on a generated
# dataset: the same bytes for every rank and thread count, verify accepts them,
# sample_to_metric as an independent Python computation gives it.
dsanalyze_add_mpi_test(NAME metrics.token_quality RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/token_quality_test.sh)
