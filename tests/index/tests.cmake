# The gather-and-write stage on its own, under mpiexec: the index files and
# sample_to_metric read back and compared with an independent expectation
# (value runs across rank boundaries and chunks, empty ranks, percentile
# groups with a partial last one, uint64 and wide keys).
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gather_write_mpi_test.cc)
# 42 s at -n 3 in a Release build on 2 cores; several times that under ASan.
dsanalyze_add_mpi_test(NAME index.gather_write RANKS 1 2 3 4 TIMEOUT 300
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> gather_write
  SANITIZED_RANKS 3)
