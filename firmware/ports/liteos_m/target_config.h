/* LiteOS-M configuration of the rtosbench liteos_m port (OpenHarmony
 * kernel_liteos_m, tag OpenHarmony_release_v1.1.0; the kernel's options are
 * in kernel/include/los_config.h, which includes this file first).
 *
 * Every option not set here keeps the kernel's default (los_config.h), as
 * the kernel's own GCC target (targets/cortex-m7_nucleo_f767zi_gcc) leaves
 * them; what is set follows the conditions every port shares
 * (docs/kernels.md): the kernel's own vector table and interrupt dispatcher,
 * the tick at RB_CFG_TICK_HZ from the core clock, time slicing with a one-tick
 * quantum, 512-word stacks for every task including the kernel's idle and
 * software-timer tasks, no console output. LiteOS-M 1.1 allocates every task
 * stack and kernel object from its memory pool (there is no static
 * creation), so the pool is sized for them. The kernel's checks follow
 * RB_CFG_CHECKS as far as it can switch them (docs/kernels.md). */
#ifndef _TARGET_CONFIG_H
#define _TARGET_CONFIG_H

#include "rb_board_hw.h"     /* RB_CORE_HZ */
#include "rb_build_config.h" /* RB_CFG_TICK_HZ, RB_CFG_CHECKS, RB_NVIC_PRIO_BITS */
#include "rb_cmsis_device.h" /* the CMSIS-Core device header of the board's core (boards/common) */
#include "rb_port.h"         /* RB_STACK_WORDS */

#ifndef RB_TIME_SLICING
#error "RB_TIME_SLICING must be defined by ports/liteos_m/port.cmake"
#endif

/* ---- Tick ------------------------------------------------------------- */
/* HalTickStart (los_timer.c of arch/arm/cortex-m4/gcc and cortex-m33/gcc alike) programs SysTick
 * with SysTick_Config(OS_SYS_CLOCK / LOSCFG_BASE_CORE_TICK_PER_SECOND): the processor clock, lowest
 * priority. */
#define OS_SYS_CLOCK (RB_CORE_HZ)
#define LOSCFG_BASE_CORE_TICK_PER_SECOND (RB_CFG_TICK_HZ)
#define LOSCFG_BASE_CORE_TICK_HW_TIME 0

/* ---- Interrupts --------------------------------------------------------- */
/* The kernel's own vector table in RAM (g_hwiForm, VTOR) and dispatcher
 * (HalInterrupt): LOS_HwiCreate-style registration (HalHwiCreate) for the
 * board's interrupts, the tick handler registered by HalTickStart. */
#define LOSCFG_PLATFORM_HWI 1
#define LOSCFG_USE_SYSTEM_DEFINED_INTERRUPT 1
/* The board's interrupt count: the STM32F405/F407's (both Cortex-M4 boards;
 * boards/common/startup.c); on a Cortex-M33 the board's vector table's
 * (RB_VECTOR_COUNT, rb_board_hw.h: 48 on the AN505). The port adopts the
 * board's handlers from that many entries. The Cortex-M33 port aligns its
 * table (g_hwiForm, los_interrupt.c) to 0x100 bytes, whatever
 * LITE_OS_SEC_VEC says: the AN505's 64 entries are exactly that. */
#if defined(RB_LOS_CM33)
#define LOSCFG_PLATFORM_HWI_LIMIT (RB_VECTOR_COUNT - 16u)
#else
#define LOSCFG_PLATFORM_HWI_LIMIT 82
#endif
/* HalHwiCreate takes a priority level of the implemented bits and refuses
 * levels above OS_HWI_PRIO_LOWEST (default 7, an 8-level NVIC): the
 * STM32F4's 4 bits have levels 0..15, and the test timer is at 14. */
#define OS_HWI_PRIO_LOWEST ((1u << RB_NVIC_PRIO_BITS) - 1u)
/* VTOR needs the table aligned to its size rounded up to a power of two
 * (16 + 82 words: 512 bytes); the kernel's default section attribute
 * (".vector") names a section the boards' linker script does not have. */
#define LITE_OS_SEC_VEC __attribute__((aligned(512)))

/* ---- Tasks ---------------------------------------------------------------- */
/* The harness' six tasks and the software-timer task; the idle task is
 * reserved on top (g_taskMaxNum = limit + 1). */
#define LOSCFG_BASE_CORE_TSK_LIMIT 7
#define LOSCFG_BASE_CORE_TSK_IDLE_STACK_SIZE (RB_STACK_WORDS * 4u)
#define LOSCFG_BASE_CORE_TSK_DEFAULT_STACK_SIZE (RB_STACK_WORDS * 4u)
#define LOSCFG_BASE_CORE_TSK_SWTMR_STACK_SIZE (RB_STACK_WORDS * 4u)
/* Time slicing (RB_TIME_SLICING, default on): OsTimesliceCheck yields the
 * running task once LOSCFG_BASE_CORE_TIMESLICE_TIMEOUT ticks have passed
 * since it was first seen running; 1 rotates equal priorities every tick. */
#if RB_TIME_SLICING
#define LOSCFG_BASE_CORE_TIMESLICE 1
#else
#define LOSCFG_BASE_CORE_TIMESLICE 0
#endif
#define LOSCFG_BASE_CORE_TIMESLICE_TIMEOUT 1

/* ---- IPC ------------------------------------------------------------------- */
/* Sized for the harness (rb_port.h RBP_MAX_*); the software-timer module
 * takes one queue of its own. */
#define LOSCFG_BASE_IPC_SEM 1
#define LOSCFG_BASE_IPC_SEM_LIMIT 24
#define LOSCFG_BASE_IPC_MUX 1
#define LOSCFG_BASE_IPC_MUX_LIMIT 2
#define LOSCFG_BASE_IPC_QUEUE 1
#define LOSCFG_BASE_IPC_QUEUE_LIMIT 3
/* Software timers: the kernel's default (on, 5 timers, a timer task at
 * priority 0 that blocks on its queue; OsSwtmrScan on every tick). */
#define LOSCFG_BASE_CORE_SWTMR 1
#define LOSCFG_BASE_CORE_SWTMR_LIMIT 5

/* ---- Memory pool ---------------------------------------------------------- */
/* The kernel's own pool (g_memStart in kernel/src/mm/los_memory.c): eight
 * 2048-byte task stacks (six harness tasks, idle, software timer), the task,
 * semaphore, mutex, queue and timer control blocks, the ready and delay lists
 * and the three queues' buffers, with the pool's node headers. */
#define LOSCFG_SYS_EXTERNAL_HEAP 0
#define LOSCFG_SYS_HEAP_SIZE 0x4E00UL

/* ---- Output, exceptions, checks -------------------------------------- */
/* No kernel output: the console carries the harness' protocol only. */
#define LOSCFG_KERNEL_PRINTF 0
#define LOSCFG_PLATFORM_EXC 0
#define LOSCFG_BASE_CORE_CPUP 0
#define LOSCFG_KERNEL_TRACE 0
/* Checks (CONFIG checks=). LiteOS-M 1.1's API argument checks (handle range,
 * object state, "not in an interrupt", e.g. LOS_SemPend's OsSemValidCheck)
 * have no switch: they are always compiled, so an `off` build is partial.
 * LOS_ASSERT_COND is always empty (utils/los_compiler.h). What RB_CFG_CHECKS
 * turns on: the task-switch check (LOSCFG_BASE_CORE_TSK_MONITOR:
 * OsTaskSwitchCheck tests the outgoing task's stack-top magic word and the
 * incoming task's stack pointer on every switch) and LOS_ASSERT (PRINT_LEVEL at
 * LOG_ERR_LEVEL). A failed check calls the exception hook, which the port
 * routes to rb_fatal. The memory pool's node checks
 * (LOSCFG_BASE_MEM_NODE_INTEGRITY_CHECK) stay at their default 0: in 1.1.0
 * they fail the first allocation of a sound pool (OsMemAddrValidCheckPrint
 * requires a free node's list links to lie inside the pool, and the only
 * free node's are NULL), so LOS_KernelInit panics (docs/kernels.md). */
#if RB_CFG_CHECKS
#define LOSCFG_BASE_CORE_TSK_MONITOR 1
#define PRINT_LEVEL 2 /* LOG_ERR_LEVEL: LOS_ASSERT compiled in (utils/los_debug.h) */
#else
#define LOSCFG_BASE_CORE_TSK_MONITOR 0
#define PRINT_LEVEL 1 /* LOG_COMMON_LEVEL: LOS_ASSERT compiled out */
#endif

#endif /* _TARGET_CONFIG_H */
