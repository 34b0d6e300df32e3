# End-to-end tests of `rtosbench edges`: synthetic analyzer captures made by
# make_capture.py from a real edges=on capture of the emulated bench
# (tests/data/edges, docs/lab.md), pushed through the real sigrok-cli and the
# real binary. Skipped (77) only when sigrok-cli is not installed.
foreach(case agree clock missing-ordered extra-ordered missing-grid extra-grid missing-tick overflow
        matrix-tolerance cli-tolerance)
  add_test(NAME edges.e2e.${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh $<TARGET_FILE:rtosbench> ${case}
                   ${RTOSBENCH_TEST_DATA}/edges/freertos-qemu-edges.raw
                   ${CMAKE_CURRENT_BINARY_DIR}/edges-e2e/${case})
  set_tests_properties(edges.e2e.${case} PROPERTIES LABELS "e2e;edges" TIMEOUT 300
                       SKIP_RETURN_CODE 77)
endforeach()
# The bare reference scheduler's edges=on capture agrees too.
add_test(NAME edges.e2e.agree-bare
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh $<TARGET_FILE:rtosbench> agree
                 ${RTOSBENCH_TEST_DATA}/edges/bare-qemu-edges.raw
                 ${CMAKE_CURRENT_BINARY_DIR}/edges-e2e/agree-bare)
set_tests_properties(edges.e2e.agree-bare PROPERTIES LABELS "e2e;edges" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
