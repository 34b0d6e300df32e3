# The hostile matrix and bench corpus (tests/matrix/hostile, issue 13) against
# the real `rtosbench run --list`: refused at load with exit 64 and the
# diagnostic each file names, nothing smuggled ever runs.
add_test(NAME matrix.hostile_corpus
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/hostile.sh ${RTOSBENCH_BIN} ${CMAKE_CURRENT_LIST_DIR}/hostile
          ${CMAKE_BINARY_DIR}/matrix-hostile)
set_tests_properties(matrix.hostile_corpus PROPERTIES LABELS matrix TIMEOUT 300)
