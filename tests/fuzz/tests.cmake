# The libFuzzer target of the log parser (tests/fuzz/fuzz_line_parser.cpp),
# built by a separate CMake project with clang++ when RTOSBENCH_FUZZ is ON,
# and a test that runs it for a bounded time on tests/data/verify.
if(NOT RTOSBENCH_FUZZ)
  return()
endif()

set(RB_FUZZ_SECONDS 20 CACHE STRING "seconds the fuzz_line_parser test fuzzes")
find_program(RB_CLANGXX NAMES clang++ clang++-16 clang++-15 clang++-14)
if(NOT RB_CLANGXX)
  # Fail loudly, never pass: the option asked for fuzzing.
  add_test(NAME fuzz_line_parser
           COMMAND sh -c "echo 'RTOSBENCH_FUZZ=ON but clang++ was not found: install clang and libclang-rt-14-dev (scripts/setup-deps.sh)' >&2; exit 1")
  set_tests_properties(fuzz_line_parser PROPERTIES LABELS fuzz)
  return()
endif()

include(ExternalProject)
set(RB_FUZZ_BUILD ${CMAKE_CURRENT_BINARY_DIR}/fuzz-build)
ExternalProject_Add(fuzz_line_parser_build
  SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}
  BINARY_DIR ${RB_FUZZ_BUILD}
  CMAKE_GENERATOR ${CMAKE_GENERATOR}
  CMAKE_ARGS -DCMAKE_CXX_COMPILER=${RB_CLANGXX} -DCMAKE_BUILD_TYPE=RelWithDebInfo
             -DRTOSBENCH_SOURCE_DIR=${PROJECT_SOURCE_DIR}
             -DRTOSBENCH_GENERATED_DIR=${PROJECT_BINARY_DIR}/src/generated
  INSTALL_COMMAND ""
  BUILD_ALWAYS ON
  DEPENDS rtosbench_core)  # for the generated version header

add_test(NAME fuzz_line_parser
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_fuzz.sh ${RB_FUZZ_BUILD}/fuzz_line_parser
                 ${RTOSBENCH_TEST_DATA}/verify ${CMAKE_CURRENT_BINARY_DIR}/fuzz-run ${RB_FUZZ_SECONDS}
                 ${CMAKE_CURRENT_LIST_DIR}/protocol.dict)
set_tests_properties(fuzz_line_parser PROPERTIES LABELS fuzz TIMEOUT 300)

# The matrix and bench loaders, bounded like the line parser, seeded with the
# shipped configurations (tests/fuzz/seeds-config: first byte 0 matrix, 1 bench).
add_test(NAME fuzz_matrix_loader
         COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run_fuzz_loader.sh ${RB_FUZZ_BUILD}/fuzz_matrix_loader
                 ${CMAKE_CURRENT_LIST_DIR}/seeds-config ${CMAKE_CURRENT_BINARY_DIR}/fuzz-loader-run ${RB_FUZZ_SECONDS}
                 ${CMAKE_CURRENT_LIST_DIR}/matrix.dict)
set_tests_properties(fuzz_matrix_loader PROPERTIES LABELS fuzz TIMEOUT 300)
