# End-to-end test of the image contract (tests/build/contract-e2e.sh): the real
# binary builds the real firmware in a scratch copy of the tree, clean and with
# injected drifts. Skips (77) without FreeRTOS' source.
add_test(NAME build.e2e.contract
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/contract-e2e.sh ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA})
set_tests_properties(build.e2e.contract PROPERTIES LABELS "e2e;build" TIMEOUT 1800 SKIP_RETURN_CODE 77)
