/* RT-Thread Nano 3.1.5 configuration of the rtosbench rtthread_nano port.
 *
 * Seed condition (seed 000 §1.2): Nano without its console. So: no
 * RT_USING_CONSOLE, no FinSH, no device framework. Otherwise Nano's usual
 * choices: 32 priorities, 4-byte alignment, 8-character names, no debug
 * (RT_DEBUG off: no asserts, no context checks), no stack overflow check, no
 * software-timer thread (RT_USING_TIMER_SOFT off; timers run in the tick),
 * the generic bit-scan (RT_USING_CPU_FFS off). Semaphores, mutexes, mailboxes
 * and message queues are on. No heap: every object the harness uses is
 * initialised statically (rt_*_init), as the seed's "mostly static
 * allocation" asks. RT_USING_IDLE_HOOK (alone, without RT_USING_HOOK's
 * object hooks on every IPC call) gives the harness its idle hook.
 * docs/kernels.md lists the conditions of every kernel. */
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

#define RT_USING_IDLE_HOOK
#define RT_IDLE_HOOK_LIST_SIZE 4

#define RT_USING_SEMAPHORE
#define RT_USING_MUTEX
#define RT_USING_MAILBOX
#define RT_USING_MESSAGEQUEUE

#endif
