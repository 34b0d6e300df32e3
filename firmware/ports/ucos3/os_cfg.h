/* uC/OS-III 3.08.00 configuration of the rtosbench ucos3 port.
 *
 * Every option the kernel reads is set here. The values are the kernel's
 * shipped defaults (Cfg/Template/os_cfg.h) except where the seed conditions
 * say otherwise (seed 000 §1.2: "statistics task and trace off"):
 *   OS_CFG_STAT_TASK_EN      0  (statistics task off)
 *   OS_CFG_TASK_PROFILE_EN   0  (per-task CPU-usage accounting, which only the
 *                                statistics task consumes; on, it runs on
 *                                every context switch)
 *   OS_CFG_TRACE_EN          0  (the default already)
 * and the API checks (OS_CFG_ARG_CHK_EN, OS_CFG_CALLED_FROM_ISR_CHK_EN,
 * OS_CFG_INVALID_OS_CALLS_CHK_EN, OS_CFG_OBJ_TYPE_CHK_EN; shipped on) follow
 * RB_CFG_CHECKS: off by default, as seed 000 runs every kernel, on with
 * RB_CHECKS=on. A tickless build (RB_CFG_TICKLESS) turns the dynamic tick on
 * (OS_CFG_DYN_TICK_EN 1, with the port's OS_DynTickGet/OS_DynTickSet on
 * SysTick, rb_port_ucos3.c) and round robin off: the kernel refuses both at
 * once (os.h: "OS_CFG_DYN_TICK_EN must be Disabled (0) to use Round Robin
 * scheduling"). docs/kernels.md lists the conditions of every kernel. */
#ifndef OS_CFG_H
#define OS_CFG_H

#include "rb_build_config.h" /* RB_CFG_CHECKS, RB_CFG_TICKLESS */

#if RB_CFG_CHECKS
#define RB_OS_CHK_EN 1u
#else
#define RB_OS_CHK_EN 0u
#endif

/* ---- Miscellaneous ------------------------------------------------------ */
#define OS_CFG_APP_HOOKS_EN 1u /* OS_AppIdleTaskHookPtr, OS_AppTimeTickHookPtr */
#define OS_CFG_ARG_CHK_EN RB_OS_CHK_EN
#define OS_CFG_CALLED_FROM_ISR_CHK_EN RB_OS_CHK_EN
#define OS_CFG_DBG_EN 0u
#define OS_CFG_TICK_EN 1u
#define OS_CFG_DYN_TICK_EN (RB_CFG_TICKLESS ? 1u : 0u) /* the tickless build */
#define OS_CFG_INVALID_OS_CALLS_CHK_EN RB_OS_CHK_EN
#define OS_CFG_OBJ_TYPE_CHK_EN RB_OS_CHK_EN
#define OS_CFG_TS_EN 0u
#define OS_CFG_PRIO_MAX 64u
#define OS_CFG_SCHED_LOCK_TIME_MEAS_EN 0u
/* Time slicing, enabled at run time by the port; compiled out in a tickless
 * build (the kernel allows no round robin with the dynamic tick). */
#define OS_CFG_SCHED_ROUND_ROBIN_EN (RB_CFG_TICKLESS ? 0u : 1u)
#define OS_CFG_STK_SIZE_MIN 64u

/* ---- Event flags ---------------------------------------------------------- */
#define OS_CFG_FLAG_EN 1u
#define OS_CFG_FLAG_DEL_EN 1u
#define OS_CFG_FLAG_MODE_CLR_EN 1u
#define OS_CFG_FLAG_PEND_ABORT_EN 1u

/* ---- Memory partitions ----------------------------------------------------- */
#define OS_CFG_MEM_EN 1u

/* ---- Mutexes (priority inheritance is built in) ----------------------------- */
#define OS_CFG_MUTEX_EN 1u
#define OS_CFG_MUTEX_DEL_EN 1u
#define OS_CFG_MUTEX_PEND_ABORT_EN 1u

/* ---- Message queues ---------------------------------------------------------- */
#define OS_CFG_Q_EN 1u
#define OS_CFG_Q_DEL_EN 1u
#define OS_CFG_Q_FLUSH_EN 1u
#define OS_CFG_Q_PEND_ABORT_EN 1u

/* ---- Semaphores ---------------------------------------------------------------- */
#define OS_CFG_SEM_EN 1u
#define OS_CFG_SEM_DEL_EN 1u
#define OS_CFG_SEM_PEND_ABORT_EN 1u
#define OS_CFG_SEM_SET_EN 1u

/* ---- Tasks ---------------------------------------------------------------------- */
#define OS_CFG_STAT_TASK_EN 0u /* seed condition: statistics task off */
#define OS_CFG_STAT_TASK_STK_CHK_EN 0u
#define OS_CFG_TASK_CHANGE_PRIO_EN 1u
#define OS_CFG_TASK_DEL_EN 1u
#define OS_CFG_TASK_IDLE_EN 1u
#define OS_CFG_TASK_PROFILE_EN 0u /* statistics, see the header comment */
#define OS_CFG_TASK_Q_EN 1u
#define OS_CFG_TASK_Q_PEND_ABORT_EN 1u
#define OS_CFG_TASK_REG_TBL_SIZE 1u
#define OS_CFG_TASK_STK_REDZONE_EN 0u
#define OS_CFG_TASK_STK_REDZONE_DEPTH 8u
#define OS_CFG_TASK_SEM_PEND_ABORT_EN 1u
#define OS_CFG_TASK_SUSPEND_EN 1u

/* ---- Task local storage ------------------------------------------------------------ */
#define OS_CFG_TLS_TBL_SIZE 0u

/* ---- Time management ------------------------------------------------------------------ */
#define OS_CFG_TIME_DLY_HMSM_EN 1u
#define OS_CFG_TIME_DLY_RESUME_EN 1u

/* ---- Timers (the timer task) ------------------------------------------------------------- */
#define OS_CFG_TMR_EN 1u
#define OS_CFG_TMR_DEL_EN 1u

/* ---- Trace (seed condition: off) ------------------------------------------------------------ */
#define OS_CFG_TRACE_EN 0u
#define OS_CFG_TRACE_API_ENTER_EN 0u
#define OS_CFG_TRACE_API_EXIT_EN 0u

#endif
