# End-to-end test of `rtosbench bundle` and `rtosbench check` on a real
# emulated run (tests/data/bundle/matrix.yaml: the bare port, one test),
# tampered with, and read by report and diff.
add_test(NAME bundle.e2e
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA}
                 ${CMAKE_CURRENT_BINARY_DIR}/bundle-e2e)
set_tests_properties(bundle.e2e PROPERTIES LABELS "e2e;bundle" TIMEOUT 600)
