# Replays of the fuzz targets in the normal (g++) test suite: each target's
# LLVMFuzzerTestOneInput, linked with replay_main.cc instead of libFuzzer, runs
# on every file of corpus/<target>/ and regressions/<target>/. So the checked-in
# corpus and every crash ever found run under plain ctest, and under the
# sanitizer build (DSANALYZE_SANITIZE), without clang. Tests: fuzz.replay.<target>.
# Included from tests/reliability/tests.cmake (part 4).
foreach(target idx npy config jsonl dsconfig maps)
  add_executable(fuzz_replay_${target}
    ${CMAKE_CURRENT_LIST_DIR}/${target}_fuzz.cc
    ${CMAKE_CURRENT_LIST_DIR}/fuzz_support.cc
    ${CMAKE_CURRENT_LIST_DIR}/replay_main.cc)
  target_include_directories(fuzz_replay_${target} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(fuzz_replay_${target} PRIVATE dsanalyze_lib)
  set(inputs ${CMAKE_CURRENT_LIST_DIR}/corpus/${target})
  if(EXISTS ${CMAKE_CURRENT_LIST_DIR}/regressions/${target})
    list(APPEND inputs ${CMAKE_CURRENT_LIST_DIR}/regressions/${target})
  endif()
  add_test(NAME fuzz.replay.${target} COMMAND fuzz_replay_${target} ${inputs})
  set_tests_properties(fuzz.replay.${target} PROPERTIES LABELS "fuzz;reliability" TIMEOUT 300)
endforeach()
