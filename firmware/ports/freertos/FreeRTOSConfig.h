/* FreeRTOS configuration of the rtosbench FreeRTOS port (FreeRTOS-Kernel
 * V10.5.1, portable/GCC/ARM_CM4F, heap_4). The seed conditions (seed 000
 * §1.3): preemption on, time slicing as the variant says (RB_TIME_SLICING,
 * default on), software timers on, heap_4, asserts / trace / run-time stats /
 * stack-overflow checking off. Asserts (configASSERT, FreeRTOS' only API
 * argument checks) follow RB_CFG_CHECKS: off by default. docs/kernels.md
 * lists every choice and why. */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#include "rb_board_hw.h"     /* RB_CORE_HZ: SysTick counts at the core clock */
#include "rb_build_config.h" /* RB_CFG_TICK_HZ */
#include "rb_port.h"         /* RB_STACK_WORDS, RB_TICK_PRIO, RB_IRQ_PRIO, RBP_PRIO_MAX */

#ifndef RB_TIME_SLICING
#error "RB_TIME_SLICING must be defined by ports/freertos/port.cmake"
#endif

/* ---- Scheduler --------------------------------------------------------- */
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING RB_TIME_SLICING
/* RB_CFG_TICKLESS (matrix variant tickless): 1 uses the port's default
 * vPortSuppressTicksAndSleep, entered when the kernel expects at least
 * configEXPECTED_IDLE_TIME_BEFORE_SLEEP (2, the default) idle ticks. */
#define configUSE_TICKLESS_IDLE RB_CFG_TICKLESS
#define configCPU_CLOCK_HZ (RB_CORE_HZ)
#define configTICK_RATE_HZ (RB_CFG_TICK_HZ)
#define configUSE_16_BIT_TICKS 0
#define configIDLE_SHOULD_YIELD 1
/* Neutral priorities 1..8 map to FreeRTOS 1..8 unchanged; idle is 0 and the
 * timer service task sits above every harness task (FreeRTOS' usual place,
 * configMAX_PRIORITIES - 1). It only runs when a timer command is queued,
 * and the harness never queues one. */
#define configMAX_PRIORITIES (RBP_PRIO_MAX + 2)
/* Ready-task lookup by the CPU's CLZ (portable/GCC/ARM_CM4F/portmacro.h:
 * portGET_HIGHEST_PRIORITY through ucPortCountLeadingZeros, an inline `clz`).
 * The port's default already; stated here so the choice is visible (CONFIG
 * lookup=clz). The ARMv8-M port (GCC/ARM_CM33_NTZ, FreeRTOS 10.5.1) has no
 * such lookup: there the kernel's generic one (lookup=generic), which
 * port.cmake selects with RB_FRT_GENERIC_LOOKUP. */
#if defined(RB_FRT_GENERIC_LOOKUP) && RB_FRT_GENERIC_LOOKUP
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 0
#else
#define configUSE_PORT_OPTIMISED_TASK_SELECTION 1
#endif
#define configMAX_TASK_NAME_LEN 8

/* ---- Memory: objects from heap_4, stacks from the harness -------------- */
#define configSUPPORT_STATIC_ALLOCATION 1  /* tasks on the harness' stacks */
#define configSUPPORT_DYNAMIC_ALLOCATION 1 /* semaphores, queue, mutexes: heap_4 */
/* 24 binary semaphores, one queue, two mutexes: 27 x (80-byte queue + 8-byte
 * heap_4 block header), plus margin: 3072 bytes. A creation that does not fit
 * fails at boot (rb_fatal), never silently. Plus the heap test's arena,
 * RB_HEAP_BYTES: heap_4 is the kernel's allocator the test times. */
#define configTOTAL_HEAP_SIZE (3072 + RB_HEAP_BYTES)
#define configMINIMAL_STACK_SIZE (RB_STACK_WORDS) /* the idle task's stack, in words */
#define configSTACK_DEPTH_TYPE uint32_t

/* ---- Features the harness uses ----------------------------------------- */
#define configUSE_MUTEXES 1 /* FreeRTOS mutexes always inherit priority */
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 0
#define configUSE_QUEUE_SETS 0
#define configUSE_TASK_NOTIFICATIONS 1 /* the kernel default; the notify test uses it */
#define configUSE_CO_ROUTINES 0
#define configQUEUE_REGISTRY_SIZE 0

/* ---- Software timers (seed condition: on) ------------------------------ */
#define configUSE_TIMERS 1
#define configTIMER_TASK_PRIORITY (configMAX_PRIORITIES - 1)
#define configTIMER_QUEUE_LENGTH 4
#define configTIMER_TASK_STACK_DEPTH (RB_STACK_WORDS)

/* ---- Hooks -------------------------------------------------------------- */
#define configUSE_IDLE_HOOK 1 /* vApplicationIdleHook -> rb_idle_hook */
#define configUSE_TICK_HOOK 1 /* vApplicationTickHook -> rb_tick_hook */
#define configUSE_MALLOC_FAILED_HOOK 0
#define configUSE_DAEMON_TASK_STARTUP_HOOK 0

/* ---- Debug facilities off (seed condition) ------------------------------ */
#define configCHECK_FOR_STACK_OVERFLOW 0
#define configUSE_TRACE_FACILITY 0
#define configGENERATE_RUN_TIME_STATS 0
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
/* API checks (RB_CFG_CHECKS, CONFIG checks=): FreeRTOS checks its arguments
 * only through configASSERT. Off (the default, seed 000): configASSERT is left
 * undefined and FreeRTOS.h compiles every assert out. On: every assert,
 * including the port's interrupt-priority check (vPortValidateInterruptPriority)
 * stops the firmware with a fault line (rb_fatal). */
#if RB_CFG_CHECKS
#define RB_FRT_STR2(x) #x
#define RB_FRT_STR(x) RB_FRT_STR2(x)
#define configASSERT(x)                                                         \
  do {                                                                          \
    if (!(x)) rb_fatal("configASSERT " __FILE_NAME__ ":" RB_FRT_STR(__LINE__)); \
  } while (0)
#endif

/* ---- Interrupt priorities (the board's implemented bits) ---------------- */
/* Not configPRIO_BITS: with asserts on (RB_CHECKS=on) FreeRTOS' port.c would
 * assert that the NVIC implements exactly that many priority bits, and QEMU's
 * NVIC implements 8 where the STM32F4 has 4 (the emulated board's
 * RB_NVIC_PRIO_BITS). The priorities below are the same either way. */
#define RB_FRT_PRIO_BITS RB_NVIC_PRIO_BITS
/* SysTick and PendSV at RB_TICK_PRIO (15, lowest), as for every kernel. */
#define configKERNEL_INTERRUPT_PRIORITY (RB_TICK_PRIO << (8 - RB_FRT_PRIO_BITS))
/* BASEPRI value of FreeRTOS critical sections: priorities 5..15 are masked
 * and may call FromISR APIs; this includes the test timer (RB_IRQ_PRIO 14),
 * which must do both. 5 is the value of FreeRTOS' own STM32F4 demos. */
#define RB_FREERTOS_MAX_SYSCALL_PRIO 5
#define configMAX_SYSCALL_INTERRUPT_PRIORITY \
  (RB_FREERTOS_MAX_SYSCALL_PRIO << (8 - RB_FRT_PRIO_BITS))
#if RB_IRQ_PRIO < RB_FREERTOS_MAX_SYSCALL_PRIO
#error \
    "the test timer (RB_IRQ_PRIO) must be at or below configMAX_SYSCALL_INTERRUPT_PRIORITY to call FromISR APIs"
#endif

/* ---- API functions included -------------------------------------------- */
#define INCLUDE_vTaskPrioritySet 0
#define INCLUDE_uxTaskPriorityGet 0
#define INCLUDE_vTaskDelete 0
#define INCLUDE_vTaskSuspend 1 /* portMAX_DELAY waits forever */
#define INCLUDE_vTaskDelayUntil 0
#define INCLUDE_vTaskDelay 1
#define INCLUDE_xTaskGetSchedulerState 0
#define INCLUDE_xTaskGetCurrentTaskHandle 0
#define INCLUDE_uxTaskGetStackHighWaterMark 0
#define INCLUDE_xTimerPendFunctionCall 0

/* ---- The port's exception handlers under the vector table's names ------ */
#define vPortSVCHandler SVC_Handler
#define xPortPendSVHandler PendSV_Handler
#define xPortSysTickHandler SysTick_Handler

#endif
