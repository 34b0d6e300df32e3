# The bare port: no kernel, our own minimal scheduler (rbp_bare.c). It needs
# no RB_KERNEL_SOURCE.
# No kernel: its scheduler is C with a Cortex-M switch in inline assembly
# (the FP registers only in fpu_context=1 builds), for ARMv7-M with or
# without FPU.
set(RB_PORT_CPUS cortex-m3 cortex-m4 cortex-m33)
set(RB_PORT_SOURCES "${RB_PORT_DIR}/rbp_bare.c")
set(RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}")

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "it has no kernel, so no tick to stop")

# Test only (tests/firmware/mixed-load-mask.sh): queue_send keeps interrupts
# masked for RB_BARE_TEST_MASK_SPIN loop passes, a port whose IPC path masks
# too long. 0 (the default) builds the bare port as it is.
set(RB_BARE_TEST_MASK_SPIN "0" CACHE STRING "test only: loop passes queue_send spins with interrupts masked")
if(NOT RB_BARE_TEST_MASK_SPIN MATCHES "^[0-9]+$")
  message(FATAL_ERROR "RB_BARE_TEST_MASK_SPIN=${RB_BARE_TEST_MASK_SPIN}: want a count")
endif()
if(RB_BARE_TEST_MASK_SPIN GREATER 0)
  list(APPEND RB_PORT_DEFINITIONS RB_BARE_TEST_MASK_SPIN=${RB_BARE_TEST_MASK_SPIN})
endif()
