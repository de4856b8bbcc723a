target_sources(dsanalyze_lib_comm PRIVATE ${CMAKE_CURRENT_LIST_DIR}/comm.cc)
target_sources(dsanalyze_lib_comm PRIVATE ${CMAKE_CURRENT_LIST_DIR}/hydra_exit.cc)
target_sources(dsanalyze_lib_comm PRIVATE ${CMAKE_CURRENT_LIST_DIR}/launch_guard.cc)
target_sources(dsanalyze_lib_comm PRIVATE ${CMAKE_CURRENT_LIST_DIR}/oversubscription.cc)
