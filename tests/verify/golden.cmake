# Compares (or, with -DREGEN=ON, rewrites) the text and JSON reports of
# `rtosbench verify` on one log with the golden files.
#   cmake -DBIN=... -DDATA=tests/data/verify -DLOG=seed003.log -DNAME=seed003
#         [-DACTUAL_DIR=dir] [-DREGEN=ON] -P golden.cmake
# The log is named relative to DATA, which is the working directory, so the
# report's source line holds no machine path.
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${BIN}" verify "${LOG}" --json - WORKING_DIRECTORY "${DATA}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE text)
if(rc GREATER 3)
  message(FATAL_ERROR "rtosbench verify ${LOG} failed (${rc}):\n${text}")
endif()
set(golden_text "${DATA}/golden/${NAME}.txt")
set(golden_json "${DATA}/golden/${NAME}.json")
if(REGEN)
  file(WRITE "${golden_text}" "${text}")
  file(WRITE "${golden_json}" "${json}")
  message(STATUS "wrote ${golden_text} and ${golden_json}")
  return()
endif()
foreach(kind text json)
  file(READ "${golden_${kind}}" want)
  if(NOT want STREQUAL ${kind})
    if(NOT DEFINED ACTUAL_DIR)
      set(ACTUAL_DIR ".")
    endif()
    get_filename_component(base "${golden_${kind}}" NAME)
    file(WRITE "${ACTUAL_DIR}/${base}.actual" "${${kind}}")
    message(FATAL_ERROR "the ${kind} report of ${LOG} differs from ${golden_${kind}}; "
                        "the actual output is ${ACTUAL_DIR}/${base}.actual (diff them). "
                        "If the change is intended: cmake --build BUILD --target regen_verify_data")
  endif()
endforeach()
