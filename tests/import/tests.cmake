# End to end: the real cyclictest (Debian's rt-tests) measured, imported,
# reported, diffed and recorded (tests/import/e2e.sh); 77 when it cannot run.
add_test(NAME import.e2e.cyclictest
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh ${RTOSBENCH_BIN}
                 ${CMAKE_CURRENT_BINARY_DIR}/import-e2e)
set_tests_properties(import.e2e.cyclictest PROPERTIES LABELS "e2e;import" TIMEOUT 120
                     SKIP_RETURN_CODE 77)
