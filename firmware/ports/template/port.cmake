# The template port: a starting point for a kernel port (docs/porting.md).
# As shipped it builds and runs with no kernel: caps is 0, so the firmware
# runs the ruler and reports every other test NA.
#
# A kernel port replaces this file with its own recipe, for example:
#
#   rb_require_kernel_source(FILES tasks.c include/FreeRTOS.h
#     HINT "a <kernel> checkout at the version configs/qemu.yaml pins")
#   set(RB_KERNEL_SOURCES "${RB_KERNEL_SOURCE}/tasks.c" "${RB_KERNEL_SOURCE}/queue.c" ...)
#   set(RB_KERNEL_INCLUDE_DIRS "${RB_KERNEL_SOURCE}/include" ...)
#   set(RB_KERNEL_DEFINITIONS "")
#   set(RB_PORT_SOURCES "${RB_PORT_DIR}/rbp_<name>.c")
#   set(RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}")   # the kernel's config header lives here
#   set(RB_PORT_DEFINITIONS "")
#   set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES}) # code run from RAM with RB_RAMFUNC=1
#   # the cores it has a kernel CPU port for, each with that port (one line of
#   # its own; RB_PORT_CPU_PORT is the board core's, CONFIG port_variant=):
#   set(RB_PORT_CPUS cortex-m4=<the kernel's CPU port directory> ...)
#   set(RB_PORT_TICKLESS "<the kernel's tickless switch>") # its config header follows RB_CFG_TICKLESS
#   # or, when the port cannot build a tickless kernel, say why (RB_TICKLESS=1 stops there):
#   set(RB_PORT_NO_TICKLESS_REASON "<why>")
set(RB_PORT_SOURCES "${RB_PORT_DIR}/rbp_template.c")
set(RB_PORT_INCLUDE_DIRS "${RB_PORT_DIR}")
