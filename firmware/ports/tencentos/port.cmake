# Build recipe of the tencentos port: TencentOS-tiny (OpenAtomFoundation/
# TencentOS-tiny, branch master at 1a4f91ab, kernel version 2.5.2) from the
# checkout RB_KERNEL_SOURCE, never copied here: kernel/core/*.c,
# kernel/pm/*.c (compiled out by the configuration), the arm-v7m common
# files and arch/arm/arm-v7m/cortex-m4/gcc (port_c.c, port_s.S), on a
# Cortex-M3 board (RB_CPU) arch/arm/arm-v7m/cortex-m3/gcc, on a Cortex-M33
# board the arm-v8m common files and arch/arm/arm-v8m/cortex-m33/gcc.
# TencentOS' port includes the CMSIS-Core header core_cm4.h (core_cm3.h,
# core_cm33.h) from the vendor BSP; this port provides the few CMSIS
# functions it uses (cmsis/core_cm4.h, and cmsis/core_cm3.h and
# cmsis/core_cm33.h, the same system-control subset).
#
#   -DRB_KERNEL_SOURCE=<TencentOS-tiny checkout>
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (tos_version.h's TOS_VERSION, git HEAD); left at n/a they are read from it.
# Seed 000 names 2.6.0, a version never published; 2.5.2 is the newest.

# The cores TencentOS' arm-v7m and arm-v8m archs have a GCC port for here
# (firmware/CMakeLists.txt reports any other board's jobs PORT_MISSING); the
# port directory follows RB_CPU.
# On qemu-netduino2 (20 KB of SRAM, 224-word stacks, a 2 KB heap arena) the
# largest kernel object is the TLSF control block k_mmheap_ctl (3204 bytes),
# sized by tos_mmheap.h's fixed K_MMHEAP_FL_INDEX_MAX 30 whatever the arena;
# the configuration is the Cortex-M4 build's (docs/firmware.md, "Small RAM").
# The cortex-m3 GCC port's port_sched_start sets PendSV's priority with a
# word store to 0xE000ED22, which also writes SysTick's priority byte:
# CONFIG tick_prio=0 there (docs/kernels.md, "Known defect").
# On a Cortex-M33 (qemu-mps2-an505) arch/arm/arm-v8m/cortex-m33/gcc, run
# Secure-only as QEMU starts the core (no TrustZone, no MPU: the port uses
# neither, and its tasks' first EXC_RETURN 0xFFFFFFFD returns to the Secure
# PSP). Its port_s.S is the Cortex-M4 one line for line: PendSV's level is
# set with a byte store (no SysTick side effect), and the FP context
# (S16-S31 on an FP frame) follows the compiler's float ABI, RB_FPU_CONTEXT,
# as on the Cortex-M4.
set(RB_PORT_CPUS cortex-m3=arch/arm/arm-v7m/cortex-m3/gcc cortex-m4=arch/arm/arm-v7m/cortex-m4/gcc cortex-m33=arch/arm/arm-v8m/cortex-m33/gcc)
set(_rb_tos_cpu "${RB_PORT_CPU_PORT}")
# The architecture directory holding the CPU port's common/ files.
string(REGEX REPLACE "/[^/]+/gcc$" "" _rb_tos_arch "${_rb_tos_cpu}")
rb_require_kernel_source(
  FILES kernel/core/tos_sys.c kernel/core/include/tos_k.h kernel/core/include/tos_version.h
        ${_rb_tos_arch}/common/tos_cpu.c ${_rb_tos_cpu}/port_s.S ${_rb_tos_cpu}/port_c.c
  HINT "a TencentOS-tiny checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_tos "${RB_KERNEL_SOURCE}")

# ---- Version and commit of the checkout ----------------------------------
file(STRINGS "${_rb_tos}/kernel/core/include/tos_version.h" _rb_tos_ver
  REGEX "^#define[ \t]+TOS_VERSION[ \t]+\"[0-9.]+\"")
string(REGEX REPLACE ".*\"([0-9.]+)\".*" "\\1" _rb_tos_ver "${_rb_tos_ver}")
if(NOT _rb_tos_ver MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "RB_PORT=tencentos: cannot read TOS_VERSION from "
    "'${_rb_tos}/kernel/core/include/tos_version.h'")
endif()
rb_adopt_kernel_version("${_rb_tos_ver}" "'${_rb_tos}' is TencentOS-tiny ${_rb_tos_ver} (kernel/core/include/tos_version.h)")
rb_check_kernel_commit("${_rb_tos}")

# ---- Sources ----------------------------------------------------------------
file(GLOB _rb_tos_core "${_rb_tos}/kernel/core/*.c")
file(GLOB _rb_tos_pm "${_rb_tos}/kernel/pm/*.c")
list(APPEND RB_KERNEL_SOURCES ${_rb_tos_core} ${_rb_tos_pm}
  "${_rb_tos}/${_rb_tos_arch}/common/tos_cpu.c"
  "${_rb_tos}/${_rb_tos_arch}/common/tos_fault.c"
  "${_rb_tos}/${_rb_tos_cpu}/port_c.c"
  "${_rb_tos}/${_rb_tos_cpu}/port_s.S")
list(APPEND RB_KERNEL_INCLUDE_DIRS
  "${_rb_tos}/kernel/core/include" "${_rb_tos}/kernel/pm/include" "${_rb_tos}/kernel/hal/include"
  "${_rb_tos}/${_rb_tos_arch}/common/include" "${_rb_tos}/${_rb_tos_cpu}")
# Time slicing among equal priorities (CONFIG slicing=, RBP_HAS_TIME_SLICE):
# on with a one-tick quantum in every kernel port, the same condition for all;
# -DRB_TIME_SLICING=OFF builds the no-slicing variant.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(RB_TIME_SLICING)
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=1)
else()
  list(APPEND RB_PORT_DEFINITIONS RB_TIME_SLICING=0)
endif()
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_tencentos.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}" "${CMAKE_CURRENT_LIST_DIR}/cmsis")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "TencentOS-tiny's tickless mode (TOS_CFG_TICKLESS_EN, kernel/pm) needs a board wake-up alarm (tos_tickless_wkup_alarm_install), which this port does not provide")
