# What a trainer does with an analysis (docs/architecture.md, "Folders").
# dsanalyze curriculum: DeepSpeed's curriculum schedule replayed and checked.
target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/clusters.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/curriculum_svg.cc
  ${CMAKE_CURRENT_LIST_DIR}/ds_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/metric_index.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/warnings.cc)
# end of dsanalyze curriculum
