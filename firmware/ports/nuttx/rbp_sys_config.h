/* NuttX's answers to the POSIX port's questions (rbp_posix_sys.h). */
#ifndef RBP_SYS_CONFIG_H
#define RBP_SYS_CONFIG_H

#include <nuttx/config.h>

/* Neutral priority p runs at SCHED_FIFO/SCHED_RR priority 1 + 100 + p
 * (101..108): above NuttX's idle (0), below the creating init task, which
 * runs at the maximum (255) until start(). */
#define RBP_SYS_PRIO_BASE 100

/* board_timerhook (CONFIG_SYSTEMTICK_HOOK), up_idle (CONFIG_ARCH_IDLE_CUSTOM),
 * pthread mutexes with PTHREAD_PRIO_INHERIT (CONFIG_PRIORITY_INHERITANCE). */
#if !defined(CONFIG_SYSTEMTICK_HOOK) || !defined(CONFIG_ARCH_IDLE_CUSTOM) || \
    !defined(CONFIG_PRIORITY_INHERITANCE)
#error \
    "ports/nuttx/defconfig: SYSTEMTICK_HOOK, ARCH_IDLE_CUSTOM and PRIORITY_INHERITANCE must be set"
#endif
/* The heap test: NuttX's mm allocator (malloc's) on the layer's own arena
 * (rbp_sys_nuttx.c). */
#define RBP_SYS_HEAP 1
#define RBP_SYS_CAPS (RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK | RBP_HAS_MUTEX_PI | RBP_HAS_HEAP)

#endif
