# End-to-end tests of the benchmark firmware (firmware/): the real
# arm-none-eabi-gcc build, the real QEMU, the real `rtosbench verify`.
# The logic lives in the shell scripts next to this file.

set(RB_FW_SRC "${PROJECT_SOURCE_DIR}/firmware")
set(RB_FW_TESTS "${CMAKE_CURRENT_LIST_DIR}")
set(RB_FW_WORK "${CMAKE_BINARY_DIR}/firmware-tests")
set(RB_FW_NONCE "5eed0003")

# (a) The bare firmware for the emulated bench: a fixture for the QEMU runs.
add_test(NAME firmware_build_qemu_bare
  COMMAND ${RB_FW_TESTS}/build.sh ${RB_FW_SRC} ${RB_FW_WORK}/qemu-bare ${CMAKE_GENERATOR}
          -DRB_PORT=bare -DRB_BOARD=qemu-netduinoplus2 -DRB_NONCE=${RB_FW_NONCE})
set_tests_properties(firmware_build_qemu_bare PROPERTIES
  FIXTURES_SETUP fw_qemu_bare LABELS firmware TIMEOUT 300)

# (b) Three runs under QEMU: each verified (exit 0, conditions pinned),
# statistics byte-identical across runs, every series present.
add_test(NAME firmware_qemu_bare_three_runs
  COMMAND ${RB_FW_TESTS}/qemu-runs.sh ${RTOSBENCH_BIN} ${RB_FW_WORK}/qemu-bare
          ${RB_FW_WORK}/qemu-bare-runs 3 ${PROJECT_SOURCE_DIR} 25:4
          board=qemu-netduinoplus2 port=bare kernel=bare counter=tim2 unit=instructions
          nonce=${RB_FW_NONCE} debugger=0 fpu=0 tick=1000 preempt=1 slicing=1
          stack_words=512 irq_prio=14 tick_prio=15 "opt=-O2 -g0" event_clock=instructions
          irq_empty=tim4_update)
set_tests_properties(firmware_qemu_bare_three_runs PROPERTIES
  FIXTURES_REQUIRED fw_qemu_bare LABELS firmware TIMEOUT 400)

# (c) The STM32F407 Discovery image builds; its size is printed.
add_test(NAME firmware_build_f407_bare
  COMMAND ${RB_FW_TESTS}/build.sh ${RB_FW_SRC} ${RB_FW_WORK}/f407-bare ${CMAKE_GENERATOR}
          -DRB_PORT=bare -DRB_BOARD=stm32f407-disco)
set_tests_properties(firmware_build_f407_bare PROPERTIES
  FIXTURES_SETUP fw_f407_bare LABELS firmware TIMEOUT 300)

# The measurement windows (harness/window.c) in both boards' images: only the
# counter reads and the call(s), nothing else between them (window-disasm.py).
add_test(NAME firmware_window_disasm
  COMMAND ${RB_FW_TESTS}/window-disasm.py ${PROJECT_SOURCE_DIR} ${RB_FW_WORK}/qemu-bare
          ${RB_FW_WORK}/f407-bare)
set_tests_properties(firmware_window_disasm PROPERTIES
  FIXTURES_REQUIRED "fw_qemu_bare;fw_f407_bare" LABELS firmware TIMEOUT 60)
# ... and the check rejects real compiler output of the wrong shapes: the loop
# the harness timed with before window.c, and window.c without its barriers.
add_test(NAME firmware_window_disasm_rejects
  COMMAND ${RB_FW_TESTS}/window-disasm.py ${PROJECT_SOURCE_DIR}
          --disasm ${RB_FW_TESTS}/data/window-disasm-rejected.txt qemu-netduinoplus2)
set_tests_properties(firmware_window_disasm_rejects PROPERTIES LABELS firmware TIMEOUT 60
  PASS_REGULAR_EXPRESSION "rb_window1: between the counter reads: blx r1; ldr r3, \\[r4, #8\\].*rb_window2: between the counter reads: blx r9; ldr r3, \\[sp, #12\\]; mov r4, r0; movs r0, #15; blx r3; cmp r5, r8; orr.w")

# ... and round_trip's window against its baseline: the listing of round_trip
# before ruler_round, whose window held lo's 11 loop instructions.
add_test(NAME firmware_window_disasm_round_rejects
  COMMAND ${RB_FW_TESTS}/window-disasm.py ${PROJECT_SOURCE_DIR}
          --disasm ${RB_FW_TESTS}/data/window-disasm-round-rejected.txt qemu-netduinoplus2)
set_tests_properties(firmware_window_disasm_round_rejects PROPERTIES LABELS firmware TIMEOUT 60
  PASS_REGULAR_EXPRESSION "round_trip: its window holds 15 instruction\\(s\\): rb_window2's blx r1; mov r4, r0; mov r0, r6; blx r5 \\+ rb_round_partner's loop ldr.w r3, \\[r9\\]; adds r5, #1; orrs r4, r0; cmp r3, r5; orr.w r6, r6, r4; bhi; movs r0, #13; blx r8; mov r4, r0; movs r0, #14; blx r7; its baseline rb_window_round holds 4")

# FP context: hard-float build whose tasks carry FP state; one short run.
add_test(NAME firmware_build_qemu_bare_fpu
  COMMAND ${RB_FW_TESTS}/build.sh ${RB_FW_SRC} ${RB_FW_WORK}/qemu-bare-fpu ${CMAKE_GENERATOR}
          -DRB_PORT=bare -DRB_FPU_CONTEXT=1 -DRB_SAMPLES=2000 -DRB_WARMUP=100
          "-DRB_TESTS=wake_latency,round_trip,irq_latency,mutex")
set_tests_properties(firmware_build_qemu_bare_fpu PROPERTIES
  FIXTURES_SETUP fw_qemu_bare_fpu LABELS firmware TIMEOUT 300)
add_test(NAME firmware_qemu_bare_fpu_run
  COMMAND ${RB_FW_TESTS}/qemu-runs.sh ${RTOSBENCH_BIN} ${RB_FW_WORK}/qemu-bare-fpu
          ${RB_FW_WORK}/qemu-bare-fpu-runs 1 ${PROJECT_SOURCE_DIR} 13:0
          fpu=1 samples=2000 warmup=100 port=bare)
set_tests_properties(firmware_qemu_bare_fpu_run PROPERTIES
  FIXTURES_REQUIRED fw_qemu_bare_fpu LABELS firmware TIMEOUT 200)

# mixed_load sees masked IPC paths: the bare port as it is against a build
# whose queue_send masks interrupts for 8000 instructions.
add_test(NAME firmware_qemu_mixed_load_mask
  COMMAND ${RB_FW_TESTS}/mixed-load-mask.sh ${RTOSBENCH_BIN} ${RB_FW_SRC} ${RB_FW_WORK}/mixed-load-mask
          ${CMAKE_GENERATOR} ${PROJECT_SOURCE_DIR})
set_tests_properties(firmware_qemu_mixed_load_mask PROPERTIES LABELS "firmware;qemu" TIMEOUT 400)

# The template port builds and runs: the ruler, and NA for everything else.
add_test(NAME firmware_build_qemu_template
  COMMAND ${RB_FW_TESTS}/build.sh ${RB_FW_SRC} ${RB_FW_WORK}/qemu-template ${CMAKE_GENERATOR}
          -DRB_PORT=template -DRB_SAMPLES=1000 -DRB_WARMUP=10)
set_tests_properties(firmware_build_qemu_template PROPERTIES
  FIXTURES_SETUP fw_qemu_template LABELS firmware TIMEOUT 300)
add_test(NAME firmware_qemu_template_run
  COMMAND ${RB_FW_TESTS}/qemu-runs.sh ${RTOSBENCH_BIN} ${RB_FW_WORK}/qemu-template
          ${RB_FW_WORK}/qemu-template-runs 1 ${PROJECT_SOURCE_DIR} 4:16
          port=template kernel=template tick=0)
set_tests_properties(firmware_qemu_template_run PROPERTIES
  FIXTURES_REQUIRED fw_qemu_template LABELS firmware TIMEOUT 200)

# Bad options and missing kernel sources are configuration errors that say so.
add_test(NAME firmware_options_rejected
  COMMAND ${RB_FW_TESTS}/options.sh ${RB_FW_SRC} ${RB_FW_WORK}/options ${CMAKE_GENERATOR})
set_tests_properties(firmware_options_rejected PROPERTIES LABELS firmware TIMEOUT 300)

# scripts/run-qemu.sh itself: timeout (124), fault line (1), usage (2).
add_test(NAME firmware_run_qemu_statuses
  COMMAND ${RB_FW_TESTS}/run-qemu-selftest.sh ${PROJECT_SOURCE_DIR}
          ${RB_FW_WORK}/qemu-bare/rtosbench-fw.elf ${RB_FW_WORK}/run-qemu-statuses)
set_tests_properties(firmware_run_qemu_statuses PROPERTIES
  FIXTURES_REQUIRED fw_qemu_bare LABELS firmware TIMEOUT 120)

# The start handshake: a late reader, a refused nonce, then the start.
add_test(NAME firmware_qemu_handshake
  COMMAND ${RB_FW_TESTS}/handshake.sh ${RTOSBENCH_BIN} ${RB_FW_WORK}/qemu-bare/rtosbench-fw.elf
          ${RB_FW_NONCE} ${RB_FW_WORK}/qemu-handshake)
set_tests_properties(firmware_qemu_handshake PROPERTIES
  FIXTURES_REQUIRED fw_qemu_bare LABELS "firmware;qemu" TIMEOUT 200)
