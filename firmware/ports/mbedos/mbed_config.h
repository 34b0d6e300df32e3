/* mbed_config.h for the mbedos port: what Mbed's tools would generate from
 * the mbed_lib.json files and an mbed_app.json, written by hand (the port
 * builds Mbed OS 6.17.0 without Mbed's tools). port.cmake force-includes it
 * (-include) into every Mbed C/C++ source and into the port; it only defines
 * macros. docs/kernels.md ("Mbed OS") lists every setting and why.
 *
 * Values are Mbed's defaults (rtos/mbed_lib.json, platform/mbed_lib.json,
 * cmsis/device/rtos/mbed_lib.json) unless a comment says otherwise. */
#ifndef RB_MBED_CONFIG_H
#define RB_MBED_CONFIG_H

#include "rb_build_config.h" /* RB_CFG_CHECKS, RB_CFG_TICK_HZ, RB_CFG_STACK_WORDS */

/* ---- rtos (cmsis/device/rtos/mbed_lib.json) ---------------------------- */
#define MBED_CONF_RTOS_PRESENT 1
#define MBED_CONF_RTOS_API_PRESENT 1
/* Changed: the idle stack of every port, the board's task stack
 * (RB_CFG_STACK_WORDS: 512 words, 2048 bytes, on most boards, 224 words on
 * the 20 KB qemu-netduino2); Mbed: 512 bytes. The only RTX stack this port
 * leaves to RTX_Config.c: RTX's dynamic memory is off (mbed_rtx_conf.h's
 * OS_DYNAMIC_MEM_SIZE 0), the timer thread is not created (below) and every
 * other thread gets its stack from the harness or the port (the boot
 * thread's, RB_CFG_STACK_WORDS too). */
#define MBED_CONF_RTOS_IDLE_THREAD_STACK_SIZE (RB_CFG_STACK_WORDS * 4)
/* Unused: mbed_rtx_conf.h adds it with MBED_TICKLESS on an lp_ticker, which
 * the port does not build (its tickless idle is RTX's own, on SysTick). */
#define MBED_CONF_RTOS_IDLE_THREAD_STACK_SIZE_TICKLESS_EXTRA 256
#define MBED_CONF_RTOS_IDLE_THREAD_STACK_SIZE_DEBUG_EXTRA 0
#define MBED_CONF_RTOS_MAIN_THREAD_STACK_SIZE 4096 /* unused: no Mbed main thread */
#define MBED_CONF_RTOS_THREAD_STACK_SIZE 4096      /* unused: every thread here gets its stack */
#define MBED_CONF_RTOS_TIMER_THREAD_STACK_SIZE 768 /* overridden below (no timer thread) */
/* Object pools off (Mbed's default): every object's control block lives in
 * the rtos:: object itself (static storage). */
#define MBED_CONF_RTOS_THREAD_NUM 0
#define MBED_CONF_RTOS_THREAD_USER_STACK_SIZE 0
#define MBED_CONF_RTOS_TIMER_NUM 0
#define MBED_CONF_RTOS_EVFLAGS_NUM 0
#define MBED_CONF_RTOS_MUTEX_NUM 0
#define MBED_CONF_RTOS_SEMAPHORE_NUM 0
#define MBED_CONF_RTOS_MSGQUEUE_NUM 0
#define MBED_CONF_RTOS_MSGQUEUE_DATA_SIZE 0
#define MBED_CONF_RTOS_ENABLE_ALL_RTX_EVENTS 0

/* ---- application overrides (what an mbed_app.json would say) ----------- */
/* Changed: no RTX timer thread (OS_TIMER_THREAD_STACK_SIZE 0; rtx_lib.c
 * then creates none): nothing uses osTimer. Mbed's tasks are so the
 * harness' six and RTX's idle, as on ChibiOS, RT-Thread and NuttX, while
 * FreeRTOS, ThreadX, uC/OS-III, TencentOS and LiteOS-M keep a (blocked)
 * timer task and Zephyr its system work queue: declared in kernel.yaml
 * (`unequal:`, docs/kernels.md "Unequal work"). */
#define MBED_CONF_APP_TIMER_THREAD_STACK_SIZE 0

/* ---- platform (platform/mbed_lib.json) --------------------------------- */
#define MBED_CONF_PLATFORM_ERROR_FILENAME_CAPTURE_ENABLED 0
#define MBED_CONF_PLATFORM_ERROR_ALL_THREADS_INFO 0
#define MBED_CONF_PLATFORM_ERROR_HIST_ENABLED 0
#define MBED_CONF_PLATFORM_FATAL_ERROR_AUTO_REBOOT_ENABLED 0
#define MBED_CONF_PLATFORM_CRASH_CAPTURE_ENABLED 0
#define MBED_CONF_PLATFORM_ERROR_DECODE_HTTP_URL_STR \
  "\nFor more info, visit: "                         \
  "https://mbed.com/s/error?error=0x%08X&osver=%d&core=0x%08X&comp=%d&ver=%lu&tgt=%s"
#define MBED_CONF_PLATFORM_CALLBACK_NONTRIVIAL 0
#define MBED_CONF_PLATFORM_CALLBACK_COMPARABLE 1
#define MBED_CONF_PLATFORM_USE_MPU 0

/* ---- RTX5 (RTX_Config.h, reached through Mbed's _RTE_ ->
 * RTE_Components.h -> mbed_rtx_conf.h; anything left out keeps RTX_Config.h's
 * or mbed_rtx_conf.h's value) --------------------------------------------- */
/* Mbed requires 1000 Hz (mbed_rtx_conf.h #errors otherwise: Kernel::Clock
 * counts milliseconds). */
#define OS_TICK_FREQ RB_CFG_TICK_HZ
/* Round robin among equal priorities with a one-tick quantum, the condition
 * of every port (RTX default: on, 5 ticks). */
#define OS_ROBIN_ENABLE 1
#define OS_ROBIN_TIMEOUT 1
/* Object memory usage counters off (RTX default). */
#define OS_OBJ_MEM_USAGE 0
/* Stack watermark off (RTX default; it would refill the harness' stacks). */
#define OS_STACK_WATERMARK 0
/* Threads run privileged (RTX default). */
#define OS_PRIVILEGE_MODE 1
/* Event recorder off: RTE_Compiler_EventRecorder stays undefined and
 * OS_EVR_INIT is 0 (RTX default). mbed_rtx_conf.h compiles most EvrRtx*
 * events out (MBED_CONF_RTOS_ENABLE_ALL_RTX_EVENTS 0); the error events and
 * thread exit stay calls to rtx_evr.c's empty weak functions, as in Mbed. */
#define OS_EVR_INIT 0

#if RB_CFG_CHECKS
/* RB_CHECKS=on: RTX's stack overflow check on every switch (RTX default is
 * off) and MBED_ASSERT active (NDEBUG undefined). */
#define OS_STACK_CHECK 1
/* Mbed's debug profile: RTX's error events trap (the port's Evr*Error,
 * as mbed_rtx_handlers.c defines them under this macro). */
#define MBED_TRAP_ERRORS_ENABLED 1
#else
/* RB_CHECKS=off: no stack check (RTX default) and MBED_ASSERT compiled out,
 * as a release build of Mbed does (NDEBUG). RTX 5.5.3 validates every
 * object id and parameter unconditionally, and the rtos:: classes check
 * every status with MBED_ERROR: those cannot be compiled out (checks=partial). */
#define OS_STACK_CHECK 0
#ifndef NDEBUG
#define NDEBUG 1
#endif
#endif

#endif
