# megatron_blend end to end (blend_test.py): generated blends analysed on 1-3
# ranks give the files of their samples written out as a `documents` dataset;
# the computed index gives the cached one's files; sample_range + merge and
# `order` work on a blend analysis.
dsanalyze_add_mpi_test(NAME blend.samples RANKS 1 2 3 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/blend_test.py)

# Every check before a sample is read: one error line, exit 2, nothing written.
dsanalyze_add_mpi_test(NAME blend.bad_input RANKS 1 TIMEOUT 120
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/blend_errors_test.py)

# megatron_core (core_test.py): caches laid out as Megatron-Core writes them
# (core_cache.py) give Core's dataset[i] on 1 and 2 ranks: a cached blend, no
# extra token with a padded last valid sample, a 9-way computed index, the
# exhaustive blend; then every refusal.
dsanalyze_add_mpi_test(NAME blend.megatron_core RANKS 1 2 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/core_test.py)
