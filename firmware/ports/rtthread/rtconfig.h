/* RT-Thread 5 configuration of the rtosbench rtthread port.
 *
 * Seed condition (seed 000 §1.2): RT-Thread full with its MSH console. The
 * starting point is RT-Thread's own STM32F407 Discovery BSP
 * (bsp/stm32/stm32f407-st-discovery/rtconfig.h); what differs from it, and
 * why, is marked "BSP:" below and listed in docs/kernels.md. In short: asserts
 * (RT_DEBUG) follow RB_CFG_CHECKS (off by default), no object hooks (trace
 * off), no stack-overflow check, no heap (every object the harness uses is
 * initialised statically, rt_*_init), no device framework (the console is
 * rt_hw_console_output / rt_hw_console_getchar, fed by the UART's receive
 * interrupt), no components-init/main thread (the harness is the
 * application), every kernel-owned stack (idle, tshell) 512 words. */
#ifndef RT_CONFIG_H__
#define RT_CONFIG_H__

#include "rb_build_config.h" /* RB_CFG_TICK_HZ, RB_CFG_CHECKS */
#include "rb_port.h"         /* RB_STACK_WORDS */

/* ---- Kernel ---------------------------------------------------------------- */
#define RT_NAME_MAX 8
#define RT_ALIGN_SIZE 8
#define RT_THREAD_PRIORITY_32
#define RT_THREAD_PRIORITY_MAX 32
#define RT_TICK_PER_SECOND RB_CFG_TICK_HZ
/* BSP: RT_USING_OVERFLOW_CHECK on (a check of the stack's '#' fill on every
 * rt_schedule). Off here, as FreeRTOS' configCHECK_FOR_STACK_OVERFLOW is 0:
 * the harness measures the stacks' high-water mark itself. */
/* BSP: RT_USING_HOOK on (scheduler, object and interrupt hooks on every
 * switch, IPC call and interrupt: the kernel's trace points). Off (seed: trace
 * off); RT_USING_IDLE_HOOK alone gives the harness its idle hook. */
#define RT_USING_IDLE_HOOK
#define RT_IDLE_HOOK_LIST_SIZE 4
/* The idle thread's stack, in bytes: 512 words like every task's (BSP: 256). */
#define IDLE_THREAD_STACK_SIZE (RB_STACK_WORDS * 4)
/* No RT_USING_TIMER_SOFT (as the BSP): timers run in the tick interrupt. */

/* API checks (CONFIG checks=): RT-Thread checks its arguments only through
 * RT_ASSERT and the context checks (RT_DEBUG_NOT_IN_INTERRUPT,
 * RT_DEBUG_IN_THREAD_CONTEXT, RT_DEBUG_SCHEDULER_AVAILABLE; include/rtdebug.h),
 * all compiled in by RT_DEBUG alone (its RT_DEBUG_* log switches stay at
 * their defaults: 0 but RT_DEBUG_DEVICE, unused without the device
 * framework). BSP: RT_DEBUG and RT_DEBUG_COLOR on. The port routes a failed
 * assert to rb_fatal (rt_assert_set_hook). */
#if RB_CFG_CHECKS
#define RT_DEBUG
/* RT-Thread 5.0.2 renamed the switch: RT_USING_DEBUG, with the context checks
 * under RT_DEBUGING_CONTEXT (RT-Thread's generated 5.0.2 BSP configurations,
 * RT_VER_NUM 0x50002); later 5.x put RT_ASSERT under RT_DEBUGING_ASSERT.
 * Defined as well, so RB_CHECKS also reaches a 5.0.2 checkout (not verified
 * here); 5.0.0 does not use these names. */
#define RT_USING_DEBUG
#define RT_DEBUGING_ASSERT
#define RT_DEBUGING_CONTEXT
#endif

/* Ready-priority lookup (CONFIG lookup=): as the BSP, RT_USING_CPU_FFS:
 * __rt_ffs is libcpu/arm/<core>/cpuport.c's __builtin_ffs (RBIT + CLZ)
 * instead of kservice.c's generic table. */
#define RT_USING_CPU_FFS
/* As the BSP (the default): rt_memset, rt_memcpy, rt_strlen, ... are the C
 * library's. */
#define RT_KSERVICE_USING_STDLIB

/* ---- Inter-thread communication (as the BSP) ------------------------------ */
#define RT_USING_SEMAPHORE
#define RT_USING_MUTEX
#define RT_USING_EVENT
#define RT_USING_MAILBOX
#define RT_USING_MESSAGEQUEUE

/* ---- Memory ------------------------------------------------------------------
 * BSP: RT_USING_HEAP, RT_USING_SMALL_MEM(_AS_HEAP), RT_USING_MEMPOOL. The
 * heap as the BSP has it (for the heap test, on the port's arena through
 * rt_system_heap_init); no memory pool. Every harness thread and object is
 * static (seed: mostly static allocation); with the heap on, the shell
 * allocates its state and thread from it (shell.c), as on the BSP. */
#define RT_USING_HEAP
#define RT_USING_SMALL_MEM
#define RT_USING_SMALL_MEM_AS_HEAP

/* ---- Console ------------------------------------------------------------------
 * BSP: RT_USING_DEVICE with the serial framework (RT_USING_SERIAL_V1, DMA,
 * 64-byte ring) and the console on device "uart1". Here the console is
 * RT-Thread's device-less one: rt_kprintf -> rt_hw_console_output and the
 * shell's finsh_getchar -> rt_hw_console_getchar, both in the port
 * (rb_port_rtthread.c), on the harness' UART. */
#define RT_USING_CONSOLE
#define RT_CONSOLEBUF_SIZE 128

/* ---- FinSH / MSH (as the BSP, but the stack) --------------------------------- */
#define RT_USING_MSH
#define RT_USING_FINSH
#define FINSH_USING_MSH
#define FINSH_THREAD_NAME "tshell"
/* Below every harness thread (2..9), above idle (31): RT-Thread's default. */
#define FINSH_THREAD_PRIORITY 20
/* 512 words like every task's (BSP and Kconfig default: 4096 bytes). */
#define FINSH_THREAD_STACK_SIZE (RB_STACK_WORDS * 4)
#define FINSH_USING_HISTORY
#define FINSH_HISTORY_LINES 5
#define FINSH_USING_SYMTAB
#define FINSH_CMD_SIZE 80
#define MSH_USING_BUILT_IN_COMMANDS
#define FINSH_USING_DESCRIPTION
#define FINSH_ARG_MAX 10

/* ---- CPU (as the BSP) --------------------------------------------------------- */
#define ARCH_ARM
#define ARCH_ARM_CORTEX_M
#if defined(RB_RT_CORTEX_M3)
#define ARCH_ARM_CORTEX_M3
#elif defined(RB_RT_CORTEX_M33)
/* As the BSPs that run the core Secure (bsp/lpc55sxx): a new thread returns
 * to the Secure PSP (libcpu/arm/cortex-m33/cpuport.c, EXC_RETURN
 * 0xFFFFFFFD). No ARM_CM33_ENABLE_TRUSTZONE: trustzone.c's TZ_* calls are
 * its empty stubs and no thread has a Secure context. */
#define ARCH_ARM_CORTEX_M33
#define ARCH_ARM_CORTEX_SECURE
#else
#define ARCH_ARM_CORTEX_M4
#endif

#endif
