# End-to-end tests of diff, regress, history and report on real emulated
# runs: the fixture step runs `rtosbench run` three times (runs A and B of
# tests/data/report/e2e/matrix.yaml, run M of mixed.yaml: the real firmware's
# bare port under QEMU); every other step reads those runs.
set(RTOSBENCH_REPORT_E2E_WORK ${CMAKE_CURRENT_BINARY_DIR}/report-e2e)
set(RTOSBENCH_REPORT_E2E_STEPS diff_identical perturbed regress_baseline mixed history history_hostile empty tampered report
    browser)

add_test(NAME report.e2e.runs
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh runs ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA}
                 ${RTOSBENCH_REPORT_E2E_WORK} ${CMAKE_COMMAND})
set_tests_properties(report.e2e.runs PROPERTIES FIXTURES_SETUP report_runs LABELS "e2e;report" TIMEOUT 600
                     RESOURCE_LOCK report_e2e_work)
foreach(step ${RTOSBENCH_REPORT_E2E_STEPS})
  add_test(NAME report.e2e.${step}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e.sh ${step} ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA}
                   ${RTOSBENCH_REPORT_E2E_WORK} ${CMAKE_COMMAND})
  set_tests_properties(report.e2e.${step} PROPERTIES FIXTURES_REQUIRED report_runs LABELS "e2e;report" TIMEOUT 300)
endforeach()
