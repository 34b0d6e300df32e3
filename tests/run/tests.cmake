# End-to-end tests of `rtosbench run` and `rtosbench doctor`: the real
# binary, arm-none-eabi-gcc, QEMU (through a pty), OpenOCD, git. Each test is
# a bash script under tests/run/e2e/ taking the binary and the test data
# directory; it prints one line per check and fails on the first bad one.
set(RTOSBENCH_RUN_E2E normal failures probes interrupt_resume malformed kernel_source doctor_configs realfw repeat capture_stall footprint
    full_disk kill concurrent_resume select smoke sweep tickless lava_secrets hostile_git
    opt_equals resume_links analyzer)
foreach(name ${RTOSBENCH_RUN_E2E})
  add_test(NAME run.e2e.${name}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e/${name}.sh ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA})
  # 77: the test cannot run here (e.g. no permission to mount a tmpfs) and says why.
  set_tests_properties(run.e2e.${name} PROPERTIES LABELS "e2e;run" TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
# The tickless test builds Zephyr (when its source is here) besides FreeRTOS.
set_tests_properties(run.e2e.tickless PROPERTIES TIMEOUT 900)
# The lava bench against a real LAVA instance the test starts (lava-server,
# lava-dispatcher, PostgreSQL from Debian); skips (77) without them or root.
# It runs the emulated matrix (configs/qemu.yaml, every kernel whose source is
# here) locally and through LAVA; the sanitizer build checks the same host
# code on its bare and freertos jobs only.
if(RTOSBENCH_SANITIZE)
  set(RB_LAVA_MODE minimal)
else()
  set(RB_LAVA_MODE emulated)
endif()
add_test(NAME run.e2e.lava
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/e2e/lava.sh ${RTOSBENCH_BIN} ${RTOSBENCH_TEST_DATA} ${RB_LAVA_MODE})
set_tests_properties(run.e2e.lava PROPERTIES LABELS "e2e;run;lava" TIMEOUT 1500 SKIP_RETURN_CODE 77
                     RUN_SERIAL TRUE)
