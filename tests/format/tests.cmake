# Format library (dtype tables, reader, writer, .npy reader).
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/dtype_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/idx_header_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/jsonl_scores_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/npy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/reader_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/writer_golden_test.cc)
