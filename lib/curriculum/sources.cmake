# What a trainer does with an analysis (docs/architecture.md, "Folders").
# dsanalyze curriculum: DeepSpeed's curriculum schedule replayed and checked.
target_sources(dsanalyze_lib PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ds_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cc)
# end of dsanalyze curriculum
