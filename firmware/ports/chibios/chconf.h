/* ChibiOS/RT 21.6.0 configuration of the rtosbench chibios port (the RT
 * kernel 7.0.0 with its ARMv7-M port, ARMv8-M-ML on a Cortex-M33, without
 * ChibiOS/HAL). Written from
 * os/rt/templates/chconf.h of that release: every setting of the template is
 * here, at the template's value unless the comment says why not.
 * docs/kernels.md ("ChibiOS/RT 21.6.0") lists them item by item.
 *
 * Included by the kernel's C files and by its assembly (chcoreasm.S defines
 * _FROM_ASM_): only definitions outside the !_FROM_ASM_ block. */
#ifndef CHCONF_H
#define CHCONF_H

#define _CHIBIOS_RT_CONF_
#define _CHIBIOS_RT_CONF_VER_7_0_

#include "rb_build_config.h" /* RB_CFG_TICK_HZ, RB_CFG_CHECKS, RB_CFG_FPU_CONTEXT (defines only) */

#ifndef RB_TIME_SLICING
#error "RB_TIME_SLICING must be defined by ports/chibios/port.cmake"
#endif

/* ---- System settings ---------------------------------------------------- */
#define CH_CFG_SMP_MODE FALSE

/* ---- System timer: the periodic tick ------------------------------------ */
/* Periodic tick (CH_CFG_ST_TIMEDELTA 0; the template's 2 is tickless mode,
 * which needs a HAL timer): the port's SysTick handler runs
 * chSysTimerHandlerI at RB_CFG_TICK_HZ, so one system time unit is one tick. */
#define CH_CFG_ST_RESOLUTION 32
#define CH_CFG_ST_FREQUENCY RB_CFG_TICK_HZ
#define CH_CFG_INTERVALS_SIZE 32
#define CH_CFG_TIME_TYPES_SIZE 32
#define CH_CFG_ST_TIMEDELTA 0

/* ---- Kernel parameters and options -------------------------------------- */
/* Round robin among equal priorities with a one-tick quantum, as in every
 * port (the template's 0 disables it); RB_TIME_SLICING=OFF builds 0. */
#if RB_TIME_SLICING
#define CH_CFG_TIME_QUANTUM 1
#else
#define CH_CFG_TIME_QUANTUM 0
#endif
#define CH_CFG_NO_IDLE_THREAD FALSE

/* ---- Performance options ------------------------------------------------ */
#define CH_CFG_OPTIMIZE_SPEED TRUE

/* ---- Subsystem options -------------------------------------------------- */
#define CH_CFG_USE_TM TRUE
#define CH_CFG_USE_TIMESTAMP TRUE
#define CH_CFG_USE_REGISTRY TRUE
#define CH_CFG_USE_WAITEXIT TRUE
#define CH_CFG_USE_SEMAPHORES TRUE
#define CH_CFG_USE_SEMAPHORES_PRIORITY FALSE
#define CH_CFG_USE_MUTEXES TRUE /* ChibiOS mutexes always inherit priority */
#define CH_CFG_USE_MUTEXES_RECURSIVE FALSE
#define CH_CFG_USE_CONDVARS TRUE
#define CH_CFG_USE_CONDVARS_TIMEOUT TRUE
#define CH_CFG_USE_EVENTS TRUE
#define CH_CFG_USE_EVENTS_TIMEOUT TRUE
#define CH_CFG_USE_MESSAGES TRUE
#define CH_CFG_USE_MESSAGES_PRIORITY FALSE
/* Dynamic threads: off (every thread is static). */
#define CH_CFG_USE_DYNAMIC FALSE

/* ---- OSLIB options ------------------------------------------------------ */
/* The mailbox is the harness' queue (chMBPostTimeout / chMBFetchTimeout). */
#define CH_CFG_USE_MAILBOXES TRUE
/* Every harness object is created statically before the start. The heap
 * test (RBP_HAS_HEAP) uses ChibiOS' heap allocator (chmemheaps.c) on a heap
 * object over the port's static RB_HEAP_BYTES arena (chHeapObjectInit, no
 * provider: it never grows). The heap needs the core allocator compiled in
 * (for the default heap, unused here); CH_CFG_MEMCORE_SIZE 0 would take the
 * RAM between the linker symbols __heap_base__ and __heap_end__ of ChibiOS'
 * own linker scripts, which the boards' linker script does not have, so the
 * core gets a token static array of 64 bytes. Memory pools, object FIFOs,
 * pipes, caches, delegates, jobs and the factory stay off. */
#define CH_CFG_USE_MEMCORE TRUE
#define CH_CFG_MEMCORE_SIZE 64
#define CH_CFG_USE_HEAP TRUE
#define CH_CFG_USE_MEMPOOLS FALSE
#define CH_CFG_USE_OBJ_FIFOS FALSE
#define CH_CFG_USE_PIPES FALSE
#define CH_CFG_USE_OBJ_CACHES FALSE
#define CH_CFG_USE_DELEGATES FALSE
#define CH_CFG_USE_JOBS FALSE

/* ---- Objects factory options -------------------------------------------- */
#define CH_CFG_USE_FACTORY FALSE
#define CH_CFG_FACTORY_MAX_NAMES_LENGTH 8
#define CH_CFG_FACTORY_OBJECTS_REGISTRY FALSE
#define CH_CFG_FACTORY_GENERIC_BUFFERS FALSE
#define CH_CFG_FACTORY_SEMAPHORES FALSE
#define CH_CFG_FACTORY_MAILBOXES FALSE
#define CH_CFG_FACTORY_OBJ_FIFOS FALSE
#define CH_CFG_FACTORY_PIPES FALSE

/* ---- Debug options ------------------------------------------------------ */
/* API checks (RB_CFG_CHECKS, CONFIG checks=): ChibiOS' parameter checks
 * (chDbgCheck, CH_DBG_ENABLE_CHECKS), its asserts (chDbgAssert,
 * CH_DBG_ENABLE_ASSERTS) and its system state checks (the API class and
 * lock-state checks of every call, CH_DBG_SYSTEM_STATE_CHECK) all follow
 * it: off by default (the template has them on), on with RB_CHECKS=on; a
 * failure halts the system (chSysHalt), which the halt hook below turns
 * into a fault line. */
#if RB_CFG_CHECKS
#define CH_DBG_SYSTEM_STATE_CHECK TRUE
#define CH_DBG_ENABLE_CHECKS TRUE
#define CH_DBG_ENABLE_ASSERTS TRUE
#else
#define CH_DBG_SYSTEM_STATE_CHECK FALSE
#define CH_DBG_ENABLE_CHECKS FALSE
#define CH_DBG_ENABLE_ASSERTS FALSE
#endif
/* Statistics and trace off (seed condition; the template's trace is on). */
#define CH_DBG_STATISTICS FALSE
#define CH_DBG_TRACE_MASK CH_DBG_TRACE_MASK_DISABLED
#define CH_DBG_TRACE_BUFFER_SIZE 128
/* Stack check off: it compares the stack pointer with the working area on
 * every switch and needs the linker symbols __main_thread_stack_base__/_end__
 * of ChibiOS' linker scripts. */
#define CH_DBG_ENABLE_STACK_CHECK FALSE
/* Off: chThdCreateStatic would fill the working area with 0x55 and erase
 * the pattern the harness reads its stacks' high-water mark from. */
#define CH_DBG_FILL_THREADS FALSE
#define CH_DBG_THREADS_PROFILING FALSE

/* ---- Kernel hooks ------------------------------------------------------- */
#if !defined(_FROM_ASM_)
#include "rb_port.h" /* rb_tick_hook, rb_idle_hook, rb_fatal */
#endif

#define CH_CFG_SYSTEM_EXTRA_FIELDS
#define CH_CFG_SYSTEM_INIT_HOOK() \
  {}
#define CH_CFG_OS_INSTANCE_EXTRA_FIELDS
#define CH_CFG_OS_INSTANCE_INIT_HOOK(oip) \
  {}
#define CH_CFG_THREAD_EXTRA_FIELDS
#define CH_CFG_THREAD_INIT_HOOK(tp) \
  {}
#define CH_CFG_THREAD_EXIT_HOOK(tp) \
  {}
#define CH_CFG_CONTEXT_SWITCH_HOOK(ntp, otp) \
  {}
#define CH_CFG_IRQ_PROLOGUE_HOOK() \
  {}
#define CH_CFG_IRQ_EPILOGUE_HOOK() \
  {}
#define CH_CFG_IDLE_ENTER_HOOK() \
  {}
#define CH_CFG_IDLE_LEAVE_HOOK() \
  {}
/* Every pass of the idle thread's loop, which never sleeps
 * (CORTEX_ENABLE_WFI_IDLE FALSE below). */
#define CH_CFG_IDLE_LOOP_HOOK() \
  { rb_idle_hook(); }
/* In chSysTimerHandlerI, once per tick, with the kernel locked. */
#define CH_CFG_SYSTEM_TICK_HOOK() \
  { rb_tick_hook(); }
/* chSysHalt (a failed check or assert with RB_CHECKS=on): a fault line
 * naming the reason instead of ChibiOS' silent halt loop. */
#define CH_CFG_SYSTEM_HALT_HOOK(reason) \
  { rb_fatal(reason); }
#define CH_CFG_TRACE_HOOK(tep) \
  {}
#define CH_CFG_RUNTIME_FAULTS_HOOK(mask) \
  {}

/* ---- Port settings (ARMv7-M and ARMv8-M-ML, os/common/ports/.../chcore.h) */
/* FP context: the FP-aware switch (s16-s31 in every context, FP exception
 * frames) in FP builds only (RB_FPU_CONTEXT); the port's default is on
 * whenever the core has an FPU. */
#if RB_CFG_FPU_CONTEXT
#define CORTEX_USE_FPU TRUE
#else
#define CORTEX_USE_FPU FALSE
#endif
/* The idle loop busy-waits (the port's default). */
#define CORTEX_ENABLE_WFI_IDLE FALSE
/* Advanced kernel mode (the default): the kernel locks by BASEPRI at
 * CORTEX_MAX_KERNEL_PRIORITY (SVCall's default 1, plus 1: 2), so priorities
 * 2..15 are masked by a lock and may call the kernel: the test timer (14)
 * and the SysTick (15) among them. (CORTEX_PRIORITY_SVCALL stays at its
 * default: chcore.h checks a value given here with a macro it defines only
 * later, so no value can be given.) */
#define CORTEX_SIMPLIFIED_PRIORITY FALSE
/* The idle thread's working area is 512 words like every task's: ChibiOS
 * keeps the thread structure and the switch frames in it (thread_t at the
 * top, as in the harness tasks' working areas; see rb_port_chibios.c).
 * PORT_WA_SIZE(0) is the port's share of a working area beyond the stack
 * proper (its context frames and PORT_INT_REQUIRED_STACK): ARMv7-M's
 * PORT_WA_CTX_SIZE + PORT_INT_REQUIRED_STACK, ARMv8-M-ML's (which has no
 * PORT_WA_CTX_SIZE) one port_intctx, one port_extctx and the same. */
#define PORT_IDLE_THREAD_STACK_SIZE (RB_STACK_WORDS * 4 - sizeof(thread_t) - PORT_WA_SIZE(0))

#endif
