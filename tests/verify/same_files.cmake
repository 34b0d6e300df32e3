# Fails when the files of directory A and directory B differ (names or bytes).
# With -DGEN=program, first runs `program A` into an emptied A.
#   cmake [-DGEN=gen_verify_logs] -DA=dir -DB=dir -P same_files.cmake
cmake_minimum_required(VERSION 3.25)
if(DEFINED GEN)
  file(REMOVE_RECURSE "${A}")
  execute_process(COMMAND "${GEN}" "${A}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${GEN} ${A} failed: ${rc}")
  endif()
endif()
file(GLOB a RELATIVE "${A}" "${A}/*")
file(GLOB b RELATIVE "${B}" "${B}/*")
list(SORT a)
list(SORT b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "file lists differ:\n${A}: ${a}\n${B}: ${b}\n"
                      "regenerate: cmake --build BUILD --target regen_verify_data")
endif()
foreach(f ${a})
  file(SHA256 "${A}/${f}" ha)
  file(SHA256 "${B}/${f}" hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${f} differs between ${A} and ${B}; "
                        "regenerate: cmake --build BUILD --target regen_verify_data")
  endif()
endforeach()
