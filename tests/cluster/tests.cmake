# The launch-mode guard (lib/comm/launch_guard.h) against recorded launcher environments.
target_sources(unit_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/launch_guard_test.cc)
