# The repository stands on its own: nothing tracked refers outside it, and the
# golden reference tree is laid out whole from its one-copy store.
add_test(NAME repo.self_contained COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/self_contained_test.sh)
set_tests_properties(repo.self_contained PROPERTIES LABELS repo
  ENVIRONMENT "SOURCE_DIR=${PROJECT_SOURCE_DIR};GOLDEN=${DSANALYZE_GOLDEN_DIR}")
