# Build recipe of the rtthread port: RT-Thread 5 (the full kernel, with the
# FinSH/MSH shell on the harness' console UART) from the checkout
# RB_KERNEL_SOURCE, never copied here: src/ (the single-core scheduler),
# libcpu/arm/cortex-m4 (cpuport.c, context_gcc.S; libcpu/arm/cortex-m3 on a
# Cortex-M3 board, libcpu/arm/cortex-m33 on a Cortex-M33, from RB_CPU) and
# components/finsh (shell.c, msh.c, msh_parse.c, cmd.c).
#
#   -DRB_KERNEL_SOURCE=<rt-thread checkout at the matrix's pin>
#
# RB_KERNEL_VERSION / RB_KERNEL_COMMIT, when given, must match the checkout
# (rtdef.h's RT_VERSION_MAJOR.RT_VERSION_MINOR.RT_VERSION_PATCH, git HEAD);
# left at n/a they are read from it.

# The cores RT-Thread's libcpu has a port for here (firmware/CMakeLists.txt
# reports any other board's jobs PORT_MISSING); the directory follows RB_CPU,
# and rtconfig.h names the core as a BSP's does (ARCH_ARM_CORTEX_M3 with
# RB_RT_CORTEX_M3, ARCH_ARM_CORTEX_M33 and ARCH_ARM_CORTEX_SECURE with
# RB_RT_CORTEX_M33, ARCH_ARM_CORTEX_M4 otherwise).
# On a Cortex-M33 (qemu-mps2-an505: Secure state, no TrustZone, no MPU)
# libcpu/arm/cortex-m33 is built as its SConscript builds it with GCC:
# cpuport.c, context_gcc.S, trustzone.c and syscall_gcc.S. Without
# ARM_CM33_ENABLE_TRUSTZONE trustzone.c's TZ_* calls are empty stubs; no
# thread ever enters a Secure context (rt_trustzone_enter is never called),
# so rt_trustzone_current_context stays 0 and PendSV takes its plain path
# (r4-r11, s16-s31 when EXC_RETURN says the thread used the FPU). With
# ARCH_ARM_CORTEX_SECURE (the BSPs that run Secure, lpc55sxx) a new thread
# returns to the Secure PSP (EXC_RETURN 0xFFFFFFFD). The FP context follows
# the float ABI, as on the Cortex-M4 (RB_FPU_CONTEXT: hard-float build).
# No MPU code exists in that port.
# On qemu-netduino2 (20 KB of SRAM, 224-word stacks, a 2 KB heap arena) the
# system heap's arena is RB_HEAP_BYTES plus what the shell takes at boot
# (rb_port_rtthread.c, RB_RT_SHELL_HEAP: tshell's state and its thread's
# stack plus 2048 bytes), the largest object; the configuration is the
# Cortex-M4 build's (docs/firmware.md, "Small RAM").
set(RB_PORT_CPUS cortex-m3=libcpu/arm/cortex-m3 cortex-m4=libcpu/arm/cortex-m4 cortex-m33=libcpu/arm/cortex-m33)
set(_rb_rt_cpu "${RB_PORT_CPU_PORT}")
if(RB_CPU STREQUAL "cortex-m3")
  list(APPEND RB_PORT_DEFINITIONS RB_RT_CORTEX_M3=1)
elseif(RB_CPU STREQUAL "cortex-m33")
  list(APPEND RB_PORT_DEFINITIONS RB_RT_CORTEX_M33=1)
endif()
rb_require_kernel_source(
  FILES src/scheduler_up.c src/ipc.c include/rtdef.h ${_rb_rt_cpu}/context_gcc.S
        ${_rb_rt_cpu}/cpuport.c components/finsh/shell.c components/finsh/msh.c
  HINT "an rt-thread checkout at the version configs/qemu.yaml pins (its kernel entry; rtosbench run --fetch-kernels fetches it)")
set(_rb_rt "${RB_KERNEL_SOURCE}")

# ---- Version and commit of the checkout ----------------------------------
set(_rb_rt_ver "")
foreach(part RT_VERSION_MAJOR RT_VERSION_MINOR RT_VERSION_PATCH)
  file(STRINGS "${_rb_rt}/include/rtdef.h" _l REGEX "^#define[ \t]+${part}[ \t]+[0-9]+")
  string(REGEX REPLACE ".*${part}[ \t]+([0-9]+).*" "\\1" _n "${_l}")
  if(NOT _n MATCHES "^[0-9]+$")
    message(FATAL_ERROR "RB_PORT=rtthread: cannot read ${part} from '${_rb_rt}/include/rtdef.h' "
      "(RT-Thread 5 defines RT_VERSION_MAJOR/MINOR/PATCH; RT-Thread Nano 3 is the rtthread_nano port)")
  endif()
  list(APPEND _rb_rt_ver "${_n}")
endforeach()
list(JOIN _rb_rt_ver "." _rb_rt_ver)
rb_adopt_kernel_version("${_rb_rt_ver}" "'${RB_KERNEL_SOURCE}' is RT-Thread ${_rb_rt_ver} (include/rtdef.h)")
rb_check_kernel_commit("${RB_KERNEL_SOURCE}")

# ---- Sources ----------------------------------------------------------------
# src/: what its SConscript builds for this rtconfig.h (no SMP: scheduler_up.c,
# not scheduler_mp.c / cpu.c; the small-memory heap (mem.c, RT_USING_SMALL_MEM
# for the heap test); no slab, memheap, memory pool, signals, device framework
# or driver model: slab.c, memheap.c, mempool.c, signal.c, device.c and
# driver.c left out; components.c holds rtthread_startup, which the port does
# itself).
foreach(f clock.c idle.c ipc.c irq.c kservice.c mem.c object.c scheduler_up.c thread.c timer.c)
  list(APPEND RB_KERNEL_SOURCES "${_rb_rt}/src/${f}")
endforeach()
# components/finsh: what its SConscript builds with MSH_USING_BUILT_IN_COMMANDS
# and without DFS.
foreach(f shell.c msh.c msh_parse.c cmd.c)
  list(APPEND RB_KERNEL_SOURCES "${_rb_rt}/components/finsh/${f}")
endforeach()
set(_rb_rt_cpu_asm "${_rb_rt}/${_rb_rt_cpu}/context_gcc.S")
list(APPEND RB_KERNEL_SOURCES "${_rb_rt}/${_rb_rt_cpu}/cpuport.c")
if(RB_CPU STREQUAL "cortex-m33")
  list(APPEND RB_KERNEL_SOURCES "${_rb_rt}/${_rb_rt_cpu}/trustzone.c")
  list(APPEND _rb_rt_cpu_asm "${_rb_rt}/${_rb_rt_cpu}/syscall_gcc.S")
  # syscall_gcc.S defines SVC_Handler (the dispatcher of trustzone.c's
  # tzcall, SVC 1); nothing here issues an SVC, and renamed it stays unused:
  # the board's default handler keeps the vector, as with HardFault_Handler.
  list(APPEND RB_KERNEL_DEFINITIONS SVC_Handler=rb_rtthread_svc_unused)
endif()
list(APPEND RB_KERNEL_SOURCES ${_rb_rt_cpu_asm})
list(APPEND RB_KERNEL_INCLUDE_DIRS "${_rb_rt}/include" "${_rb_rt}/components/finsh")
# RT-Thread's own build passes -Wa,-mimplicit-it=thumb for every assembly
# file (its BSPs' rtconfig.py); the port does the same for its .S files.
set_source_files_properties(${_rb_rt_cpu_asm} PROPERTIES
  COMPILE_OPTIONS "-Wa,-mimplicit-it=thumb")
# context_gcc.S defines HardFault_Handler (RT-Thread's fault dump); renamed, it
# stays unused and the board's fault reporter keeps the vector, as in the
# rtthread_nano port.
list(APPEND RB_KERNEL_DEFINITIONS HardFault_Handler=rb_rtthread_hardfault_unused)
# MSH finds its commands between __fsymtab_start and __fsymtab_end, symbols
# RT-Thread's BSP linker scripts define around the FSymTab section. The
# boards' linker script has no such lines; GNU ld defines __start_FSymTab and
# __stop_FSymTab for that section itself (a C-identifier section name), and
# keeps the section under --gc-sections because shell.c refers to them.
set_property(SOURCE "${_rb_rt}/components/finsh/shell.c" APPEND PROPERTY COMPILE_DEFINITIONS
  __fsymtab_start=__start_FSymTab __fsymtab_end=__stop_FSymTab)

# The console UART the harness writes to and the shell reads from by
# interrupt (RT-Thread's BSP owns the console driver; this port is the BSP).
# The board names it: its base, receive interrupt and handler, and its kind
# (RB_BOARD_CONSOLE_UART_KIND: an STM32-type USART, RXNEIE, unless it says
# cmsdk, the CMSDK APB UART of qemu-mps2-an505: CTRL RXINTEN, INTCLEAR).
if(NOT RB_BOARD_CONSOLE_USART OR NOT RB_BOARD_CONSOLE_IRQN OR NOT RB_BOARD_CONSOLE_ISR)
  message(FATAL_ERROR "RB_PORT=rtthread: boards/${RB_BOARD}/board.cmake names no console USART "
    "(RB_BOARD_CONSOLE_USART, RB_BOARD_CONSOLE_IRQN, RB_BOARD_CONSOLE_ISR)")
endif()
list(APPEND RB_PORT_DEFINITIONS RB_RT_CONSOLE_USART=${RB_BOARD_CONSOLE_USART}
  RB_RT_CONSOLE_IRQN=${RB_BOARD_CONSOLE_IRQN}u RB_RT_CONSOLE_IRQHandler=${RB_BOARD_CONSOLE_ISR})
if(RB_BOARD_CONSOLE_UART_KIND STREQUAL "cmsdk")
  list(APPEND RB_PORT_DEFINITIONS RB_RT_CONSOLE_CMSDK=1)
elseif(RB_BOARD_CONSOLE_UART_KIND AND NOT RB_BOARD_CONSOLE_UART_KIND STREQUAL "stm32")
  message(FATAL_ERROR "RB_PORT=rtthread: RB_BOARD_CONSOLE_UART_KIND '${RB_BOARD_CONSOLE_UART_KIND}' "
    "is neither stm32 nor cmsdk")
endif()

# RT-Thread always rotates equal-priority ready threads when their tick budget
# runs out; there is no switch to turn that off.
set(RB_TIME_SLICING ON CACHE BOOL "time slicing among equal-priority tasks (one-tick quantum)")
if(NOT RB_TIME_SLICING)
  message(FATAL_ERROR "RB_PORT=rtthread: RB_TIME_SLICING=OFF is not possible: RT-Thread always "
    "time-slices threads of equal priority (each thread has a tick budget)")
endif()
list(APPEND RB_PORT_SOURCES "${CMAKE_CURRENT_LIST_DIR}/rb_port_rtthread.c")
list(APPEND RB_PORT_INCLUDE_DIRS "${CMAKE_CURRENT_LIST_DIR}")

# RB_RAMFUNC=1 runs every kernel source compiled above from RAM (scheduler,
# switch and the calls the tests time alike).
set(RB_PORT_RAMFUNC_SOURCES ${RB_KERNEL_SOURCES})

# RB_TICKLESS=1 is refused (docs/kernels.md, "Tickless idle"):
set(RB_PORT_NO_TICKLESS_REASON
  "RT-Thread's tickless idle belongs to its PM component (components/drivers/pm, RT_USING_PM), which needs a BSP low-power timer driver this port does not build")
