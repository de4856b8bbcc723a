# dsanalyze batches: DeepSpeed's variable batch size (lib/batching).
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/python_random_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/steps_chart_test.cc)

# Plans on real analyses against an independent brute-force reference of
# DeepSpeed's batch_by_seqlens (tests/batching/batch_reference.py).
dsanalyze_add_mpi_test(NAME batching.run RANKS 1 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/batches_run_test.py)
# The random order against Python's own random.Random(seed).shuffle.
dsanalyze_add_mpi_test(NAME batching.random_order RANKS 1 TIMEOUT 300
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/random_order_test.py)
# plan.json (parameters and their sources, counts, efficiency, ranges,
# warnings), the terminal summary and --svg, recomputed by the test.
dsanalyze_add_mpi_test(NAME batching.plan_report RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/plan_report_test.py)
# docs/usage.md §15's Python snippet hands DeepSpeed batch_by_seqlens' results.
dsanalyze_add_mpi_test(NAME batching.usage_snippet RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/usage_snippet_test.py)
# What DeepSpeed accepts, accepted alike: hjson comments, numeric strings,
# "enabled": 1, null scaling; -q; an analysis of sample_to_metric alone.
dsanalyze_add_mpi_test(NAME batching.config_forms RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/config_forms_test.py)
# Bad input: one error line, exit 2, nothing at --out.
dsanalyze_add_mpi_test(NAME batching.bad_input RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/bad_input_test.py)
# Killed (SIGKILL), signalled (SIGINT, SIGTERM) at each write step, and on a
# full disk (docs/reliability.md, "order and batches").
foreach(mode kill signals disk_full)
  dsanalyze_add_mpi_test(NAME batching.faults_${mode} RANKS 2 TIMEOUT 300
    LABELS reliability
    COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/reliability/command_faults_test.py batches ${mode})
endforeach()
set_tests_properties(batching.faults_disk_full.np2 PROPERTIES SKIP_RETURN_CODE 77)
# --epochs K: epoch 1 as DeepSpeed plans it, later epochs its batches in the
# order of the documented seed rule (Python's own random.Random).
dsanalyze_add_mpi_test(NAME batching.epochs RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/epochs_test.py)
# scripts/dsanalyze_deepspeed.py, the drop-in for DeepSpeed's call, against
# torch-free stand-ins of DeepSpeed's dataloader and LR scheduler
# (tests/batching/deepspeed_standin.py): samples and LR at every step.
dsanalyze_add_mpi_test(NAME batching.dropin RANKS 1
  COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/dropin_test.py)
