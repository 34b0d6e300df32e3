# docs/ARCHITECTURE.md, "Where a change belongs", proven: each test copies the
# source tree into a temporary directory, adds a kernel, a board or a harness
# test there exactly as its row says (and nothing else, checked with
# `git status` in the copy), and runs the real binary on the emulated bench
# against the copy. 77: QEMU or the ARM toolchain is missing, and the test
# says which.
foreach(name add_kernel add_board add_harness_test)
  add_test(NAME arch.e2e.${name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/${name}.sh ${RTOSBENCH_BIN} ${PROJECT_SOURCE_DIR})
  set_tests_properties(arch.e2e.${name} PROPERTIES LABELS "e2e;qemu;arch" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
# Issue 27's proportion rule: no function in src/ over 100 lines
# (universal-ctags' extents; 77 without it).
add_test(NAME arch.function_length COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/function-length.sh ${PROJECT_SOURCE_DIR} 100)
set_tests_properties(arch.function_length PROPERTIES LABELS arch TIMEOUT 60 SKIP_RETURN_CODE 77)
