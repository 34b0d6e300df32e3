/* RT-Thread Nano 3.1.5 configuration of the rtosbench rtthread_nano port.
 *
 * Seed condition (seed 000 §1.2): Nano without its console. So: no
 * RT_USING_CONSOLE, no FinSH, no device framework. Otherwise Nano's usual
 * choices: 32 priorities, 4-byte alignment, 8-character names, no stack
 * overflow check, no software-timer thread (RT_USING_TIMER_SOFT off; timers
 * run in the tick). Asserts and context checks (RT_DEBUG) follow RB_CFG_CHECKS
 * (off by default), and the ready-priority lookup uses the CPU's CLZ
 * (RT_USING_CPU_FFS), as every other kernel's does. Semaphores, mutexes, mailboxes
 * and message queues are on. The heap (small memory) is on for the heap
 * test only: every object the harness uses is initialised statically (rt_*_init), as the seed's
 * "mostly static allocation" asks. RT_USING_IDLE_HOOK (alone, without RT_USING_HOOK's object hooks
 * on every IPC call) gives the harness its idle hook. docs/kernels.md lists the conditions of every
 * kernel. */
#ifndef RT_CONFIG_H__
#define RT_CONFIG_H__

#include "rb_build_config.h" /* RB_CFG_TICK_HZ */
#include "rb_port.h"         /* RB_STACK_WORDS */

#define RT_THREAD_PRIORITY_MAX 32
#define RT_TICK_PER_SECOND RB_CFG_TICK_HZ
#define RT_ALIGN_SIZE 4
#define RT_NAME_MAX 8

/* The idle thread's stack, in bytes: 512 words like every task's. */
#define IDLE_THREAD_STACK_SIZE (RB_STACK_WORDS * 4)

/* API checks (CONFIG checks=): RT-Thread checks its arguments only through
 * RT_ASSERT and the context checks (RT_DEBUG_NOT_IN_INTERRUPT,
 * RT_DEBUG_IN_THREAD_CONTEXT; include/rtdebug.h), all compiled in by RT_DEBUG
 * alone (its RT_DEBUG_* log switches stay at their default, 0). The port
 * routes a failed assert to rb_fatal (rt_assert_set_hook). */
#if RB_CFG_CHECKS
#define RT_DEBUG
#endif

/* Ready-priority lookup (CONFIG lookup=): scheduler.c finds the highest
 * ready priority with __rt_ffs. Without RT_USING_CPU_FFS that is kservice.c's
 * generic version (a 256-byte table); with it, libcpu/arm/<core>/cpuport.c's
 * __builtin_ffs, which GCC compiles to RBIT + CLZ. */
#define RT_USING_CPU_FFS

#define RT_USING_IDLE_HOOK
#define RT_IDLE_HOOK_LIST_SIZE 4

#define RT_USING_SEMAPHORE
#define RT_USING_MUTEX
#define RT_USING_MAILBOX
#define RT_USING_MESSAGEQUEUE

/* The heap test (RBP_HAS_HEAP): the system heap, small-memory allocator, on
 * the port's RB_HEAP_BYTES arena (rt_system_heap_init). The harness' own
 * objects stay static. */
#define RT_USING_HEAP
#define RT_USING_SMALL_MEM

#endif
