target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/blend_index_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/documents_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/megatron_gpt_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/packed_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_ids_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_reference_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_mod_test.cc)

# The Python reference for document pieces and score reductions
# (tests/support/score_reference.py) checks itself on made-up files;
# score_reference_test.cc compares its pieces with the dataset types'.
add_test(NAME dataset.score_reference
  COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/support/score_reference.py --self-test)

# The example configs (configs/documents.json, packed.json, megatron_gpt.json)
# run from a scratch directory holding generated inputs (`dsanalyze generate`,
# with --gpt-maps for the index maps), and give the same bytes for 1-3 ranks x
# 1-3 threads.
dsanalyze_add_mpi_test(NAME dataset.configs RANKS 1 2 3 TIMEOUT 300
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/configs_test.sh)

# seqlen alone on `documents` reads no .bin page (page-cache residency probe).
dsanalyze_add_mpi_test(NAME dataset.seqlen_reads_no_bin RANKS 1 2 TIMEOUT 120
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/no_bin_read_test.sh)
set_tests_properties(dataset.seqlen_reads_no_bin.np1 dataset.seqlen_reads_no_bin.np2
  PROPERTIES SKIP_RETURN_CODE 77)
