target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/documents_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/megatron_gpt_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/npy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/packed_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_ids_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic_mod_test.cc)

# Writes Megatron-style GPT index maps for a token dataset (inputs for configs_test.sh).
add_executable(make_gpt_maps ${CMAKE_CURRENT_LIST_DIR}/make_gpt_maps.cc)
target_include_directories(make_gpt_maps PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(make_gpt_maps PRIVATE dsanalyze_lib)

# The example configs (configs/documents.json, packed.json, megatron_gpt.json)
# run from a scratch directory holding generated inputs, and give the same
# bytes for 1-3 ranks x 1-3 threads.
dsanalyze_add_mpi_test(NAME dataset.configs RANKS 1 2 3 TIMEOUT 300
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/configs_test.sh $<TARGET_FILE:make_gpt_maps>)

# seqlen alone on `documents` reads no .bin page (page-cache residency probe).
dsanalyze_add_mpi_test(NAME dataset.seqlen_reads_no_bin RANKS 1 2 TIMEOUT 120
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/no_bin_read_test.sh)
set_tests_properties(dataset.seqlen_reads_no_bin.np1 dataset.seqlen_reads_no_bin.np2
  PROPERTIES SKIP_RETURN_CODE 77)
