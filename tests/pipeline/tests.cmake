target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/local_sort_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_store_test.cc)

# The distributed sort on its own, under mpiexec: order, exact balance, skew, empty ranks.
add_executable(sample_sort_mpi_test ${CMAKE_CURRENT_LIST_DIR}/sample_sort_mpi_test.cc)
target_link_libraries(sample_sort_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(sample_sort_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME pipeline.sample_sort RANKS 1 2 3 4
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:sample_sort_mpi_test>)

# The gather-and-write stage on its own, under mpiexec: the index files and
# sample_to_metric read back and compared with an independent expectation
# (value runs across rank boundaries and chunks, empty ranks, percentile
# groups with a partial last one, uint64 and wide keys).
add_executable(gather_write_mpi_test ${CMAKE_CURRENT_LIST_DIR}/gather_write_mpi_test.cc)
target_link_libraries(gather_write_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(gather_write_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME pipeline.gather_write RANKS 1 2 3 4
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:gather_write_mpi_test>)

# Dependencies between metrics across ranks (pipeline/dependencies.h) and the
# exact checked sum (pipeline/global_reduce.h): one shared pass, results reused.
add_executable(dependencies_mpi_test ${CMAKE_CURRENT_LIST_DIR}/dependencies_mpi_test.cc)
target_link_libraries(dependencies_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(dependencies_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME pipeline.dependencies RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:dependencies_mpi_test>)

# The whole run: byte-identical to DeepSpeed's golden outputs for every rank and
# thread count, tiny chunks, skew, fewer samples than ranks.
dsanalyze_add_mpi_test(NAME pipeline.end_to_end RANKS 1 2 3 4 TIMEOUT 300
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/end_to_end_test.sh)

# A rerun into the same save path replaces the whole previous analysis (stale
# metric folders, curriculum_config.json, data_clusters/); verify and compare
# check folders against summary.json.
dsanalyze_add_mpi_test(NAME pipeline.rerun RANKS 1 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/rerun_test.sh)

# --progress: live lines for every stage in a pseudo-terminal under mpiexec,
# plain lines or none in logs, the end-of-run summary, a bad value.
dsanalyze_add_mpi_test(NAME pipeline.progress RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/progress_test.sh)

# Sample ids at and above 2^32 (dataset.sample_indices, shuffled, with gaps):
# every file byte-identical to an independent Python computation, sample dtype
# uint64, verify passes.
dsanalyze_add_mpi_test(NAME pipeline.large_ids RANKS 1 2 3
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/large_ids_test.py)

# The out-of-core sort (pipeline/out_of_core_sort.h): values in a spilling
# ValueStore, sorted in passes, byte-identical to the in-memory sort.
add_executable(out_of_core_sort_mpi_test ${CMAKE_CURRENT_LIST_DIR}/out_of_core_sort_mpi_test.cc)
target_link_libraries(out_of_core_sort_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(out_of_core_sort_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME pipeline.out_of_core_sort RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:out_of_core_sort_mpi_test>)

# A run under memory.limit_per_rank (pipeline/memory_plan.h): spilled runs
# byte-identical to in-memory runs, summary.json's memory block, the scratch
# left empty after success, a full scratch and a kill.
dsanalyze_add_mpi_test(NAME pipeline.memory_limit RANKS 1 2 3 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/memory_limit_test.py)
# The same on a real full file system: scratch on a 1 MiB tmpfs (root only).
dsanalyze_add_mpi_test(NAME pipeline.memory_scratch_full RANKS 2 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/memory_limit_test.py tmpfs)
set_tests_properties(pipeline.memory_scratch_full.np2 PROPERTIES SKIP_RETURN_CODE 77)

# --timings' dependency-pass line and per-metric split; on a terminal the
# dependency pass's log line is not written onto the live progress line.
dsanalyze_add_mpi_test(NAME pipeline.timings_detail RANKS 1 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/timings_detail_test.sh)
