# docs.commands.<doc>: every `sh` block of the README, the usage guide and the config
# reference runs as written, in a scratch folder laid out like a fresh clone
# (doc_commands_test.py).
find_package(Python3 REQUIRED COMPONENTS Interpreter)
foreach(doc README.md docs/usage.md docs/config.md)
  get_filename_component(name ${doc} NAME_WE)
  add_test(NAME docs.commands.${name}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/doc_commands_test.py
                   ${PROJECT_SOURCE_DIR}/${doc})
  set_tests_properties(docs.commands.${name} PROPERTIES LABELS "docs;mpi" TIMEOUT 900
    ENVIRONMENT "SOURCE_DIR=${PROJECT_SOURCE_DIR};BUILD_DIR=${PROJECT_BINARY_DIR}")
endforeach()

# docs.help_documented: every long option of `dsanalyze --help` and of each command's
# --help is mentioned in docs/, and every config key the loader knows (and every built-in
# metric) in docs/config.md (help_documented_test.py).
add_test(NAME docs.help_documented
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/help_documented_test.py)
set_tests_properties(docs.help_documented PROPERTIES LABELS "docs" TIMEOUT 120
  ENVIRONMENT "SOURCE_DIR=${PROJECT_SOURCE_DIR};DSANALYZE=$<TARGET_FILE:dsanalyze>")
