target_sources(dsanalyze_lib_check PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compare.cc
  ${CMAKE_CURRENT_LIST_DIR}/compare_page.cc
  ${CMAKE_CURRENT_LIST_DIR}/element_search.cc
  ${CMAKE_CURRENT_LIST_DIR}/verify.cc)
