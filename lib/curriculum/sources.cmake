# What a trainer does with an analysis (docs/architecture.md, "Folders"):
# dsanalyze curriculum (DeepSpeed's schedule replayed and checked) and
# dsanalyze order (a whole-dataset training order).
target_sources(dsanalyze_lib_curriculum PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_size.cc
  ${CMAKE_CURRENT_LIST_DIR}/clusters.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_page.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/ds_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/ds_json.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_index.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_file.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_inputs.cc
  ${CMAKE_CURRENT_LIST_DIR}/proposal_chart.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay.cc
  ${CMAKE_CURRENT_LIST_DIR}/row_cursors.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/sorted_ids.cc
  ${CMAKE_CURRENT_LIST_DIR}/training_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/warning_kinds.cc
  ${CMAKE_CURRENT_LIST_DIR}/warnings.cc)
