# Build recipe of the PX5 port: PX5 RTOS (the version the matrix pins, 4.0.0)
# from the user's own source directory RB_KERNEL_SOURCE (commercial; never in
# this repository), the POSIX port (ports/posix/) with the PX5 layer.
#
#   rtosbench run --matrix configs/f407.yaml --kernel-source px5=PATH
#
# PATH holds what PX5 ships for a Cortex-M4 with GCC: pthread.h and the
# other public headers, its C sources (px5.c) and its GCC binding (C or
# assembly) at the top level of PATH. Every .c, .s and .S file there is
# compiled with the harness' flags; nothing else is looked for.
#   -DRB_PX5_START=<call>   PX5's start call, when the version needs one before
#                           the first pthread call (rbp_sys_px5.c)
#
# RB_KERNEL_VERSION comes from the matrix (PX5's version cannot be read from
# a tree whose layout is not public).

set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (SCHED_RR)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()
set(RB_PX5_START "" CACHE STRING "PX5's start call, e.g. px5_pthread_start(1, 0, 0)")
if(NOT RB_PX5_START STREQUAL "")
  list(APPEND RB_PORT_DEFINITIONS "RB_PX5_START=${RB_PX5_START}")
endif()

rb_require_kernel_source(FILES pthread.h
  HINT "PX5 RTOS has no public source: supply your PX5 4.0 directory (pthread.h, px5.c and its "
       "Cortex-M4 GCC binding) with --kernel-source px5=PATH")
file(GLOB _rb_px5_src "${RB_KERNEL_SOURCE}/*.c" "${RB_KERNEL_SOURCE}/*.s" "${RB_KERNEL_SOURCE}/*.S")
if(NOT _rb_px5_src)
  message(FATAL_ERROR "RB_PORT=px5: '${RB_KERNEL_SOURCE}' has pthread.h but no .c, .s or .S file "
    "(PX5's sources and binding belong at its top level)")
endif()
list(APPEND RB_KERNEL_SOURCES ${_rb_px5_src})
list(APPEND RB_KERNEL_INCLUDE_DIRS "${RB_KERNEL_SOURCE}")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

list(APPEND RB_PORT_SOURCES "${RB_PORT_DIR}/../posix/rbp_posix.c" "${RB_PORT_DIR}/rbp_sys_px5.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}" "${RB_PORT_DIR}/../posix")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "PX5 has no public source to say how its tick is suppressed")
