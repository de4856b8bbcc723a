# page: the HTML writer every page shares (escaping, sections, tables, findings).
target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/html_test.cc
                                  ${CMAKE_CURRENT_LIST_DIR}/numbers_test.cc)

# The batches, curriculum and compare --html pages read by a person: the
# summary box first with every warning in it, numbers for people, no text
# under 10 px at 390 px, tidy without a warning (headless chromium; ~10 s).
dsanalyze_add_mpi_test(NAME page.view_pages RANKS 1 TIMEOUT 300 LABELS browser
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/view_pages_test.py)
