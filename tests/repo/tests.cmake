# The repository stands on its own: nothing tracked refers outside it, and the
# golden reference tree is laid out whole from its one-copy store.
add_test(NAME repo.self_contained COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/self_contained_test.sh)
set_tests_properties(repo.self_contained PROPERTIES LABELS repo
  ENVIRONMENT "SOURCE_DIR=${PROJECT_SOURCE_DIR};GOLDEN=${DSANALYZE_GOLDEN_DIR}")

# No function in lib/ or apps/ is longer than 60 lines, measured with pmccabe
# (scripts/check_function_length.sh); and the check itself on made-up sources.
add_test(NAME repo.function_length
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/check_function_length.sh)
add_test(NAME repo.function_length_check
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/function_length_test.sh)
set_tests_properties(repo.function_length repo.function_length_check PROPERTIES LABELS repo
  ENVIRONMENT "SOURCE_DIR=${PROJECT_SOURCE_DIR}")

# lib/ is layered: each folder includes exactly the folders lib/CMakeLists.txt
# declares for it, they form no cycle, and docs/architecture.md shows that table.
add_test(NAME repo.layering COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/layering_test.py
  ${PROJECT_SOURCE_DIR})
set_tests_properties(repo.layering PROPERTIES LABELS repo)

# The linker enforces the layering: two probe libraries declaring only util,
# with link checks as every folder has (dsanalyze_link_check); built only by
# the test. The one calling report/ must fail to link. Seconds when the
# library is built.
foreach(probe declared undeclared)
  add_library(dsanalyze_layering_probe_${probe} STATIC EXCLUDE_FROM_ALL
    ${CMAKE_CURRENT_LIST_DIR}/layering_probe/${probe}.cc)
  target_link_libraries(dsanalyze_layering_probe_${probe} PUBLIC dsanalyze_lib_util)
  dsanalyze_link_check(dsanalyze_layering_probe_${probe} EXCLUDE_FROM_ALL)
endforeach()
add_test(NAME repo.layering_probe COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/layering_probe_test.sh)
set_tests_properties(repo.layering_probe PROPERTIES LABELS repo
  ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR}")

# Every unit test case is its own ctest entry (no name that breaks discovery).
add_test(NAME repo.unit_test_names
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/unit_test_names_test.sh $<TARGET_FILE:unit_tests>)
set_tests_properties(repo.unit_test_names PROPERTIES LABELS repo)
