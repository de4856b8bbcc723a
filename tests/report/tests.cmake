target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/rank_correlation_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/report_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/score_summary_test.cc)

# summary.json's timings and per-rank memory, and the --timings table, from a real run.
dsanalyze_add_mpi_test(NAME report.run_summary RANKS 1 2 3
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_summary_test.sh)

# curriculum_config.json with several metrics proposes one (output.curriculum_metric
# or the first) and lists the others apart; the run's log hints at the check.
dsanalyze_add_mpi_test(NAME report.curriculum_proposal RANKS 1 2
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/curriculum_proposal_test.sh)

# report.html of a run, a merge and 100 metrics, and the curriculum, batches
# and compare --html pages, in headless chromium at 1280 and 390 px and by tidy.
# 18 s in a Release build on an idle 2-core machine, ~100 s at load 14;
# its runs are slower again under ASan (chromium itself is not instrumented).
dsanalyze_add_mpi_test(NAME report.html_pages RANKS 2 TIMEOUT 300 LABELS browser
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/html_pages_test.py)

# summary.json's spearman, spread, extremes and NaN-free score statistics
# against a stdlib recomputation from the metric files, for a run and a merge
# of two parts; report.html's summary box holds every warning. ~3 s.
dsanalyze_add_mpi_test(NAME report.spearman_extremes RANKS 1 3
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/spearman_extremes_test.py)
