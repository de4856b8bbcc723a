# The distributed sort of (value, id) keys: local radix sort, sample sort
# across ranks, and the out-of-core sort over a spilling value store. It
# hands sorted keys (or ids grouped by value) to a caller's sink and knows no
# file format.
target_sources(dsanalyze_lib_sort PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/global_ranks.cc
  ${CMAKE_CURRENT_LIST_DIR}/local_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/out_of_core_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/sample_sort.cc
  ${CMAKE_CURRENT_LIST_DIR}/value_store.cc)
