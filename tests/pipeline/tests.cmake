target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/index_path_test.cc)

# Dependencies between metrics across ranks (pipeline/dependencies.h) and the
# exact checked sum (pipeline/global_reduce.h): one shared pass, results reused.
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dependencies_mpi_test.cc)
dsanalyze_add_mpi_test(NAME pipeline.dependencies RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> dependencies
  SANITIZED_RANKS 3)

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
