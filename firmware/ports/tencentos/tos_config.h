/* TencentOS-tiny configuration of the rtosbench tencentos port (master
 * 1a4f91ab, version 2.5.2; seed 000 names 2.6.0, which was never published).
 *
 * Seed condition: "default configuration". That is read here as the kernel's
 * own defaults (kernel/core/include/tos_config_default.h) for every option not
 * listed below, plus the components the harness uses switched on the way the
 * official board examples' tos_config.h does it (10 priorities, round robin,
 * semaphores, mutexes, message queues, software timers). Timers stay at their
 * default (a timer task, TOS_CFG_TIMER_AS_PROC 0). Kernel stacks are 512
 * words like every task's. Object verification (the kernel's one switchable
 * API check) follows RB_CFG_CHECKS: off by default, its own default too.
 * docs/kernels.md lists the conditions of every kernel. */
#ifndef _TOS_CONFIG_H_
#define _TOS_CONFIG_H_

#include "rb_board_hw.h"     /* RB_CORE_HZ */
#include "rb_build_config.h" /* RB_CFG_TICK_HZ */
#include "rb_port.h"         /* RB_STACK_WORDS, RB_TICK_PRIO */

/* Priorities 0 (most urgent) .. 9; 9 is idle, 8 the timer task (default:
 * idle - 1), 0..7 the harness' neutral 8..1. */
#define TOS_CFG_TASK_PRIO_MAX 10u

/* Round robin (RB_TIME_SLICING, default on; the board examples turn it on). */
#if RB_TIME_SLICING
#define TOS_CFG_ROUND_ROBIN_EN 1u
#else
#define TOS_CFG_ROUND_ROBIN_EN 0u
#endif
#define TOS_CFG_SEM_EN 1u
#define TOS_CFG_MUTEX_EN 1u
#define TOS_CFG_MESSAGE_QUEUE_EN 1u
#define TOS_CFG_TIMER_EN 1u
/* The heap test (RBP_HAS_HEAP): tos_mmheap (TLSF) on the port's own
 * RB_HEAP_BYTES arena (tos_mmheap_pool_add), no default pool. */
#define TOS_CFG_MMHEAP_EN 1u
#define TOS_CFG_MMHEAP_DEFAULT_POOL_EN 0u

/* API checks (CONFIG checks=): TOS_CFG_OBJECT_VERIFY_EN checks each object's
 * type on every call (TOS_OBJ_VERIFY, kernel/core/include/tos_klib.h). The
 * null-pointer and in-interrupt checks (TOS_PTR_SANITY_CHECK,
 * TOS_IN_IRQ_CHECK) have no switch: they are compiled in whatever this says,
 * so an `off` build reports checks=partial. */
#if RB_CFG_CHECKS
#define TOS_CFG_OBJECT_VERIFY_EN 1u
#else
#define TOS_CFG_OBJECT_VERIFY_EN 0u
#endif

/* Stacks in bytes (k_stack_t is a byte). */
#define TOS_CFG_IDLE_TASK_STK_SIZE (RB_STACK_WORDS * 4u)
#define TOS_CFG_TIMER_TASK_STK_SIZE (RB_STACK_WORDS * 4u)

#define TOS_CFG_CPU_CLOCK (RB_CORE_HZ)
#define TOS_CFG_CPU_TICK_PER_SECOND (RB_CFG_TICK_HZ)
/* The kernel hands this to NVIC_SetPriority before SysTick_Config, which (as
 * CMSIS defines it) then sets SysTick to the lowest priority anyway. */
#define TOS_CFG_CPU_SYSTICK_PRIO (RB_TICK_PRIO)

#endif
