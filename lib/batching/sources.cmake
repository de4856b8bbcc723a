# dsanalyze batches: DeepSpeed's variable batch size (batch_by_seqlens) planned
# in linear time over an analysis (docs/usage.md, "Variable batch size").
target_sources(dsanalyze_lib_batching PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_input.cc
  ${CMAKE_CURRENT_LIST_DIR}/batch_params.cc
  ${CMAKE_CURRENT_LIST_DIR}/batch_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/epochs.cc
  ${CMAKE_CURRENT_LIST_DIR}/plan_files.cc
  ${CMAKE_CURRENT_LIST_DIR}/plan_page.cc
  ${CMAKE_CURRENT_LIST_DIR}/plan_report.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/python_random.cc
  ${CMAKE_CURRENT_LIST_DIR}/steps_chart.cc)
