target_sources(dsanalyze_lib_page PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/histogram_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/html.cc
  ${CMAKE_CURRENT_LIST_DIR}/numbers.cc
  ${CMAKE_CURRENT_LIST_DIR}/svg.cc)
