# page: the HTML writer every page shares (escaping, sections, tables, findings).
target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/html_test.cc
                                  ${CMAKE_CURRENT_LIST_DIR}/numbers_test.cc)
