# The history against a real PostgreSQL server the tests start themselves
# (tests/store/postgres-server.sh: initdb + pg_ctl from Debian's postgresql
# into a temporary directory). Each skips (77) with its reason when the
# server binaries are absent or rtosbench is built without libpqxx.
#   store.history_postgres: every unit test named *Postgres* (the history
#     tests SQLite runs too, and PostgreSQL's own), in one process, one server;
#   store.e2e.postgres_history: the real binary, the emulated runs of
#     report.e2e.runs: two processes recording at once into one history.
if(TARGET PkgConfig::PQXX)
  add_test(NAME store.history_postgres
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/postgres-unit.sh $<TARGET_FILE:rtosbench_unit_tests>)
  add_test(NAME store.e2e.postgres_history
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e/postgres_history.sh ${RTOSBENCH_BIN}
                   ${RTOSBENCH_REPORT_E2E_WORK})
  set_tests_properties(store.e2e.postgres_history PROPERTIES FIXTURES_REQUIRED report_runs)
else()
  foreach(name store.history_postgres store.e2e.postgres_history)
    add_test(NAME ${name} COMMAND sh -c "echo 'SKIP: rtosbench is built without libpqxx (install libpqxx-dev: scripts/setup-deps.sh)'; exit 77")
  endforeach()
endif()
set_tests_properties(store.history_postgres PROPERTIES LABELS "store;postgres" TIMEOUT 300 SKIP_RETURN_CODE 77)
set_tests_properties(store.e2e.postgres_history PROPERTIES LABELS "e2e;store;postgres" TIMEOUT 300
                     SKIP_RETURN_CODE 77)
# store.e2e.result_schema: every result.json and run.json of report.e2e.runs'
# real emulated runs conforms to docs/schema/result.schema.json and reads.
add_test(NAME store.e2e.result_schema
         COMMAND $<TARGET_FILE:rtosbench_unit_tests> --gtest_filter=ResultSchema.TheFilesOfARealRunConform)
set_tests_properties(store.e2e.result_schema PROPERTIES FIXTURES_REQUIRED report_runs
                     ENVIRONMENT RB_RESULT_RUNS=${RTOSBENCH_REPORT_E2E_WORK} LABELS "e2e;store" TIMEOUT 120)
