# End-to-end tests of `rtosbench verify`: the real binary on the logs in
# tests/data/verify. Included by tests/CMakeLists.txt.
set(RB_VERIFY_DATA ${RTOSBENCH_TEST_DATA}/verify)
set(RB_VERIFY_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RB_VERIFY_OUT ${CMAKE_CURRENT_BINARY_DIR}/verify)
file(MAKE_DIRECTORY ${RB_VERIFY_OUT})

# The generator of tests/data/verify/generated (see gen_verify_logs.cpp).
add_executable(gen_verify_logs ${RB_VERIFY_DIR}/gen_verify_logs.cpp)
target_link_libraries(gen_verify_logs PRIVATE rtosbench_core)
target_include_directories(gen_verify_logs PRIVATE ${RB_VERIFY_DIR})

# Golden reports: log (relative to the data directory) and golden name.
set(RB_VERIFY_GOLDEN
    "seed003.log=seed003"
    "generated/valid_v2.log=valid_v2"
    "generated/valid_v2_instructions.log=valid_v2_instructions"
    "generated/result_mismatch.log=result_mismatch"
    "generated/baseline_named.log=baseline_named"
    "generated/heap_calls.log=heap_calls")

# `cmake --build BUILD --target regen_verify_data` rewrites the generated
# logs and the golden reports after an intended change.
set(_regen_cmds
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${RB_VERIFY_DATA}/generated
    COMMAND $<TARGET_FILE:gen_verify_logs> ${RB_VERIFY_DATA}/generated)
foreach(entry ${RB_VERIFY_GOLDEN})
  string(REPLACE "=" ";" pair ${entry})
  list(GET pair 0 log)
  list(GET pair 1 name)
  list(APPEND _regen_cmds COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:rtosbench> -DDATA=${RB_VERIFY_DATA}
       -DLOG=${log} -DNAME=${name} -DREGEN=ON -P ${RB_VERIFY_DIR}/golden.cmake)
endforeach()
add_custom_target(regen_verify_data ${_regen_cmds} DEPENDS gen_verify_logs rtosbench VERBATIM)

# The committed generated logs are what the generator writes today.
add_test(NAME verify_data_up_to_date
         COMMAND ${CMAKE_COMMAND} -DGEN=$<TARGET_FILE:gen_verify_logs> -DA=${RB_VERIFY_OUT}/generated
                 -DB=${RB_VERIFY_DATA}/generated -P ${RB_VERIFY_DIR}/same_files.cmake)
set_tests_properties(verify_data_up_to_date PROPERTIES LABELS verify)

foreach(entry ${RB_VERIFY_GOLDEN})
  string(REPLACE "=" ";" pair ${entry})
  list(GET pair 0 log)
  list(GET pair 1 name)
  add_test(NAME verify_golden_${name}
           COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:rtosbench> -DDATA=${RB_VERIFY_DATA} -DLOG=${log}
                   -DNAME=${name} -DACTUAL_DIR=${RB_VERIFY_OUT} -P ${RB_VERIFY_DIR}/golden.cmake)
  set_tests_properties(verify_golden_${name} PROPERTIES LABELS verify)
endforeach()

# One test per row of cases.tsv: exit code and exact verdict names.
file(STRINGS ${RB_VERIFY_DATA}/cases.tsv _rows)
set(_n 0)
foreach(row IN LISTS _rows)
  if(row MATCHES "^#" OR row STREQUAL "")
    continue()
  endif()
  string(REPLACE "\t" ";" cols "${row}")
  list(LENGTH cols ncols)
  if(NOT ncols EQUAL 4)
    message(FATAL_ERROR "tests/data/verify/cases.tsv: want 4 TAB-separated columns: ${row}")
  endif()
  list(GET cols 0 file)
  list(GET cols 1 opts)
  list(GET cols 2 code)
  list(GET cols 3 verdicts)
  math(EXPR _n "${_n} + 1")
  get_filename_component(stem ${file} NAME_WE)
  set(name verify_case_${_n}_${stem})
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:rtosbench> -DLOG=${RB_VERIFY_DATA}/${file} "-DARGS=${opts}"
                   -DEXIT=${code} -DVERDICTS=${verdicts} -DOUT=${RB_VERIFY_OUT}/${name}.json
                   -P ${RB_VERIFY_DIR}/run_case.cmake)
  set_tests_properties(${name} PROPERTIES LABELS verify)
endforeach()

# Paths that cannot be read: exit 66 with a message naming the cause.
add_test(NAME verify_missing_file
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_OUT}/no-such.log" -DEXIT=66
                 "-DSTDERR_HAS=No such file or directory" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_directory
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}" -DEXIT=66
                 "-DSTDERR_HAS=is a directory" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
# Permission bits do not stop root: the test then reports itself skipped (77).
add_test(NAME verify_permission_denied
         COMMAND sh ${RB_VERIFY_DIR}/permission_denied.sh $<TARGET_FILE:rtosbench> ${RB_VERIFY_OUT}
                 ${RB_VERIFY_DATA}/seed003.log)
set_tests_properties(verify_permission_denied PROPERTIES SKIP_RETURN_CODE 77)
# Usage errors: 64.
add_test(NAME verify_usage_bad_expect
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--expect;novalue"
                 -DEXIT=64 "-DSTDERR_HAS=is not KEY=VALUE" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_usage_no_log
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify" -DEXIT=64 -P ${RB_VERIFY_DIR}/expect_exit.cmake)
# Standard input, and JSON on standard output.
add_test(NAME verify_stdin
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;-" -DSTDIN=${RB_VERIFY_DATA}/generated/valid_v2.log
                 -DEXIT=0 "-DSTDOUT_HAS=outcome: valid (exit 0)" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_json_stdout
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--json;-"
                 -DEXIT=3 -DSTDOUT_JSON_OUTCOME=unverified "-DSTDERR_HAS=outcome: unverified (exit 3)"
                 -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_json_unwritable
         COMMAND ${CMAKE_COMMAND}
                 "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--json;${RB_VERIFY_OUT}/no/such/dir/r.json"
                 -DEXIT=73 "-DSTDERR_HAS=cannot write" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
# A line of megabytes inside a valid log: skipped as overlong, still valid.
add_test(NAME verify_megabyte_line
         COMMAND sh ${RB_VERIFY_DIR}/megabyte_line.sh $<TARGET_FILE:rtosbench> ${RB_VERIFY_OUT}
                 ${RB_VERIFY_DATA}/generated/valid_v2.log)
# An empty input is no capture: refused with 65, from a file and from
# standard input (empty, or /dev/null); a closed standard input is 66.
add_test(NAME verify_empty_file
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/generated/empty.log" -DEXIT=65
                 "-DSTDERR_HAS=is empty (0 bytes)" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_stdin_empty
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;-" -DSTDIN=${RB_VERIFY_DATA}/generated/empty.log
                 -DEXIT=65 "-DSTDERR_HAS=standard input is empty (0 bytes)" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_stdin_dev_null
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;-;--json;-" -DSTDIN=/dev/null
                 -DEXIT=65 "-DSTDERR_HAS=standard input is empty (0 bytes)" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_stdin_closed COMMAND sh ${RB_VERIFY_DIR}/stdin_closed.sh $<TARGET_FILE:rtosbench>)
# Options that are not there (the parallel verifier's) and values that make
# no sense are refused by CLI11 with 64.
add_test(NAME verify_usage_chunk_bytes
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--chunk-bytes;1"
                 -DEXIT=64 "-DSTDERR_HAS=--chunk-bytes" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_usage_threads
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--threads;0"
                 -DEXIT=64 "-DSTDERR_HAS=--threads" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
add_test(NAME verify_usage_expect_empty_key
         COMMAND ${CMAKE_COMMAND} "-DCMD=$<TARGET_FILE:rtosbench>;verify;${RB_VERIFY_DATA}/seed003.log;--expect;=1"
                 -DEXIT=64 "-DSTDERR_HAS='=1' is not KEY=VALUE" -P ${RB_VERIFY_DIR}/expect_exit.cmake)
set_tests_properties(verify_missing_file verify_directory verify_permission_denied verify_usage_bad_expect
                     verify_usage_no_log verify_stdin verify_json_stdout verify_json_unwritable verify_megabyte_line
                     verify_empty_file verify_stdin_empty verify_stdin_dev_null verify_stdin_closed
                     verify_usage_chunk_bytes verify_usage_threads verify_usage_expect_empty_key
                     PROPERTIES LABELS verify)
