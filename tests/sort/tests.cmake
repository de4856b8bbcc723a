target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/local_sort_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_store_test.cc)

# The distributed sort on its own, under mpiexec: order, exact balance, skew, empty ranks.
add_executable(sample_sort_mpi_test ${CMAKE_CURRENT_LIST_DIR}/sample_sort_mpi_test.cc)
target_link_libraries(sample_sort_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(sample_sort_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME sort.sample_sort RANKS 1 2 3 4
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:sample_sort_mpi_test>)

# The out-of-core sort (sort/out_of_core_sort.h): values in a spilling
# ValueStore, sorted in passes, byte-identical to the in-memory sort.
add_executable(out_of_core_sort_mpi_test ${CMAKE_CURRENT_LIST_DIR}/out_of_core_sort_mpi_test.cc)
target_link_libraries(out_of_core_sort_mpi_test PRIVATE dsanalyze_lib)
target_include_directories(out_of_core_sort_mpi_test PRIVATE ${PROJECT_SOURCE_DIR}/tests)
dsanalyze_add_mpi_test(NAME sort.out_of_core_sort RANKS 1 2 3
  COMMAND ${MPIEXEC_BIN} -n @NP@ $<TARGET_FILE:out_of_core_sort_mpi_test>)
