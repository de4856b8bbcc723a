# --- Part 1: the bad-input suite (bad_input_test.py) -------------------------
# One ctest test per malformed input, reliability.bad_input.<case>, each running
# `mpiexec -n 2 dsanalyze --config ...` and checking the exit code, the one
# error line, the 10 s bound and that the save path is unchanged. The setup test
# writes the shared inputs and the good run the cases' save paths start from.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(bad_input_driver ${CMAKE_CURRENT_LIST_DIR}/bad_input_test.py)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${bad_input_driver})
execute_process(COMMAND ${Python3_EXECUTABLE} ${bad_input_driver} list
                OUTPUT_VARIABLE bad_input_cases RESULT_VARIABLE bad_input_rc)
if(NOT bad_input_rc EQUAL 0)
  message(FATAL_ERROR "${bad_input_driver} list failed")
endif()
string(STRIP "${bad_input_cases}" bad_input_cases)
string(REPLACE "\n" ";" bad_input_cases "${bad_input_cases}")
set(bad_input_dir ${PROJECT_BINARY_DIR}/reliability/bad_input)
set(bad_input_env
  "MPIEXEC=${MPIEXEC_BIN}"
  "DSANALYZE=$<TARGET_FILE:dsanalyze>"
  "PLUGIN_FAULTY=$<TARGET_FILE:test_plugin_faulty>"
  "PLUGIN_BAD_ABI=$<TARGET_FILE:test_plugin_bad_abi>"
  "PLUGIN_NO_REGISTER=$<TARGET_FILE:test_plugin_no_register>"
  "PLUGIN_BAD_TABLE=$<TARGET_FILE:test_plugin_bad_table>"
  "PLUGIN_EXAMPLE=$<TARGET_FILE:dsanalyze_example_plugin>")
add_test(NAME reliability.bad_input.setup
         COMMAND ${Python3_EXECUTABLE} ${bad_input_driver} setup ${bad_input_dir})
set_tests_properties(reliability.bad_input.setup PROPERTIES
  FIXTURES_SETUP reliability_bad_input LABELS "mpi;reliability" TIMEOUT 120
  ENVIRONMENT "${bad_input_env}")
foreach(case ${bad_input_cases})
  add_test(NAME reliability.bad_input.${case}
           COMMAND ${Python3_EXECUTABLE} ${bad_input_driver} case ${case} ${bad_input_dir})
  set_tests_properties(reliability.bad_input.${case} PROPERTIES
    FIXTURES_REQUIRED reliability_bad_input LABELS "mpi;reliability" TIMEOUT 60
    ENVIRONMENT "${bad_input_env}")
endforeach()
# --- end of part 1 -------------------------------------------------------------
# --- Part 4: fuzzing (tests/fuzz/) ------------------------------------------------
# fuzz.replay.<target>: every corpus and regression input of the libFuzzer
# targets, replayed by a g++-built driver (tests/fuzz/tests.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../fuzz/tests.cmake)
# --- end of part 4 -------------------------------------------------------------
# --- Parts 2 and 3: faults, interruption and the save-path lock (fault_test.sh)
# reliability.kill_<point>_rank<r>.np<k>: rank r of k is stopped at <point> by
# the test-only hook (lib/util/fault_point.h) and SIGKILLed; mpiexec must end
# non-zero within 10 s, the previous results stay byte-for-byte, and a rerun
# equals a clean run. reliability.lock: a second run into a busy save path
# fails fast. reliability.disk_full*: a 2 MiB tmpfs save path (root, mount
# namespace; skipped with 77 otherwise).
set(fault_test ${CMAKE_CURRENT_LIST_DIR}/fault_test.sh)
foreach(point map exchange write)
  dsanalyze_add_mpi_test(NAME reliability.kill_${point}_rank0 RANKS 2 3 TIMEOUT 120
    LABELS reliability COMMAND bash ${fault_test} kill ${point} 0)
  dsanalyze_add_mpi_test(NAME reliability.kill_${point}_rank1 RANKS 2 TIMEOUT 120
    LABELS reliability COMMAND bash ${fault_test} kill ${point} 1)
endforeach()
dsanalyze_add_mpi_test(NAME reliability.kill_exchange_rank2 RANKS 3 TIMEOUT 120
  LABELS reliability COMMAND bash ${fault_test} kill exchange 2)
# reliability.interrupt_<sig>_<point>_<to>: SIG<sig> reaches the run while a
# rank is paused at <point>, sent to mpiexec (which forwards it to every rank),
# to every rank, or to the paused rank only; the run ends with 128+signal, one
# line, no staging directory or lock left and the previous results intact, or,
# signalled during the commit, completes it and exits 0.
# One rank never reaches the exchange or write points (nothing to send).
foreach(point map sort exchange write report commit)
  set(ranks 1 2 3)
  if(point MATCHES "exchange|write")
    set(ranks 2 3)
  endif()
  dsanalyze_add_mpi_test(NAME reliability.interrupt_int_${point}_mpiexec RANKS ${ranks}
    TIMEOUT 120 LABELS reliability COMMAND bash ${fault_test} interrupt INT ${point} 0 mpiexec)
endforeach()
foreach(point map write)
  dsanalyze_add_mpi_test(NAME reliability.interrupt_term_${point}_mpiexec RANKS 2 TIMEOUT 120
    LABELS reliability COMMAND bash ${fault_test} interrupt TERM ${point} 1 mpiexec)
  dsanalyze_add_mpi_test(NAME reliability.interrupt_hup_${point}_ranks RANKS 2 TIMEOUT 120
    LABELS reliability COMMAND bash ${fault_test} interrupt HUP ${point} 0 ranks)
endforeach()
dsanalyze_add_mpi_test(NAME reliability.interrupt_term_exchange_paused RANKS 2 3 TIMEOUT 120
  LABELS reliability COMMAND bash ${fault_test} interrupt TERM exchange 1 paused)
dsanalyze_add_mpi_test(NAME reliability.interrupt_term_commit_ranks RANKS 2 TIMEOUT 120
  LABELS reliability COMMAND bash ${fault_test} interrupt TERM commit 0 ranks)
# reliability.interrupt_<sig>_merge: `dsanalyze merge` paused at its point
# `merge` gets SIG<sig>: the run's one line, exit 128+signal, nothing left.
foreach(sig INT TERM)
  string(TOLOWER ${sig} name)
  dsanalyze_add_mpi_test(NAME reliability.interrupt_${name}_merge RANKS 2 TIMEOUT 120
    LABELS reliability COMMAND bash ${fault_test} merge ${sig})
endforeach()
# reliability.commit_kill: rank 0 paused at each step of the one-step commit
# (lib/output/analysis_writer.h) and SIGKILLed while a 1-metric analysis
# replaces a 4-metric one, then the last rank SIGKILLed at each step while the
# 4-metric one replaces it; the save path holds the whole old or the whole
# new analysis, the next run cleans up. reliability.merge_kill: `dsanalyze
# merge` SIGKILLed at `merge` and at each commit step (commit_kill_test.sh).
set(commit_kill_test ${CMAKE_CURRENT_LIST_DIR}/commit_kill_test.sh)
dsanalyze_add_mpi_test(NAME reliability.commit_kill RANKS 2 3 TIMEOUT 240
  LABELS reliability COMMAND bash ${commit_kill_test} run)
dsanalyze_add_mpi_test(NAME reliability.merge_kill RANKS 1 TIMEOUT 240
  LABELS reliability COMMAND bash ${commit_kill_test} merge)
dsanalyze_add_mpi_test(NAME reliability.lock RANKS 2 TIMEOUT 120
  LABELS reliability COMMAND bash ${fault_test} lock)
# reliability.commit_writer: a process creating a file in the save path every
# 0.5 ms while 20 runs commit into it loses none of them.
# reliability.commit_readers: `verify` in two loops while 16 runs of two
# configs commit never fails. reliability.commit_held_lock: a reader holding
# the lock (`flock -s`) makes the swap wait, then exit 3 on every rank
# (concurrent_test.py).
set(concurrent_test ${CMAKE_CURRENT_LIST_DIR}/concurrent_test.py)
dsanalyze_add_mpi_test(NAME reliability.commit_writer RANKS 1 TIMEOUT 120
  LABELS reliability COMMAND python3 ${concurrent_test} writer)
dsanalyze_add_mpi_test(NAME reliability.commit_readers RANKS 1 TIMEOUT 120
  LABELS reliability COMMAND python3 ${concurrent_test} readers)
dsanalyze_add_mpi_test(NAME reliability.commit_held_lock RANKS 2 TIMEOUT 120
  LABELS reliability COMMAND python3 ${concurrent_test} held)
foreach(mode disk_full disk_full_old)
  dsanalyze_add_mpi_test(NAME reliability.${mode} RANKS 2 TIMEOUT 60
    LABELS reliability COMMAND bash ${fault_test} ${mode})
  set_tests_properties(reliability.${mode}.np2 PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
# --- end of parts 2 and 3 -------------------------------------------------------
# --- Part 5: outputs stay out of analyses (output_paths_test.py) ----------------
# reliability.output_paths_table: every output option of every command (from
# its --help) pointed into an analysis, directly, through ".." and symbolic
# links, and at the command's other inputs: exit 2, one line naming the option,
# the path and the analysis, every analysis unchanged and passing verify.
# reliability.output_paths_issue: issue 43's four reproductions.
foreach(mode table issue)
  dsanalyze_add_mpi_test(NAME reliability.output_paths_${mode} RANKS 1 TIMEOUT 120
    LABELS reliability COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/output_paths_test.py ${mode})
endforeach()
# --- end of part 5 ---------------------------------------------------------------
# --- Part 6: exceptions and inputs that are not files (internal_error_test.py) --
# reliability.internal_error_throw.np<k>: the test-only hook throws std::bad_alloc
# or an error at a point of a run (the map, the sort, the reports, the write, on
# one rank or every rank): exit 3, one line, no staging folder or lock left
# (but where rank 0 is ended while it waits for the rank that threw; the next
# run then cleans up). reliability.internal_error_fifo: every command given a
# FIFO or a device as input exits 2 within seconds, with one line.
set(internal_error_test ${CMAKE_CURRENT_LIST_DIR}/internal_error_test.py)
dsanalyze_add_mpi_test(NAME reliability.internal_error_throw RANKS 1 2 3 TIMEOUT 120
  LABELS reliability COMMAND python3 ${internal_error_test} throw)
dsanalyze_add_mpi_test(NAME reliability.internal_error_fifo RANKS 1 TIMEOUT 60
  LABELS reliability COMMAND python3 ${internal_error_test} fifo)
# --- end of part 6 --------------------------------------------------------------
