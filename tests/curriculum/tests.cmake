# --- dsanalyze order ---------------------------------------------------------------
target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/order_test.cc)
# An analysis at NP ranks, then orders checked against an independent Python
# computation of docs/format.md §2.11 (the same bytes for any NP).
dsanalyze_add_mpi_test(NAME curriculum.order_run RANKS 1 2 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/order_run_test.py)
# Bad input: one error line, exit 2, nothing written at --out.
dsanalyze_add_mpi_test(NAME curriculum.order_bad_input RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/order_bad_input_test.py)
# --- end of dsanalyze order --------------------------------------------------------
