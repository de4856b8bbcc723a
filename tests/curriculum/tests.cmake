# dsanalyze curriculum: the schedule model, the config reader, the replay.
target_sources(unit_tests PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ds_config_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/replay_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/schedule_test.cc)
# end of dsanalyze curriculum
