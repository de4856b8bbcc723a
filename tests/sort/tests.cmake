target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/local_sort_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_store_test.cc)

# The distributed sort on its own, under mpiexec: order, exact balance, skew, empty ranks.
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/sample_sort_mpi_test.cc)
dsanalyze_add_mpi_test(NAME sort.sample_sort RANKS 1 2 3 4
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> sample_sort
  SANITIZED_RANKS 3)

# The out-of-core sort (sort/out_of_core_sort.h): values in a spilling
# ValueStore, sorted in passes, byte-identical to the in-memory sort.
target_sources(mpi_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/out_of_core_sort_mpi_test.cc)
dsanalyze_add_mpi_test(NAME sort.out_of_core_sort RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:mpi_tests> out_of_core_sort
  SANITIZED_RANKS 3)
