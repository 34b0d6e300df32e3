/* PX5's answers to the POSIX port's questions (rbp_posix_sys.h). */
#ifndef RBP_SYS_CONFIG_H
#define RBP_SYS_CONFIG_H

/* Neutral priority p runs at sched_get_priority_min + 10 + p. */
#define RBP_SYS_PRIO_BASE 10

/* Nothing beyond POSIX is claimed: PX5's tick and idle hooks, and whether its
 * mutexes honour PTHREAD_PRIO_INHERIT, are not known here without its source
 * (docs/kernels.md, "PX5"). tick_overhead and CHECK mutex_pi are NA. */
#define RBP_SYS_CAPS 0u

#endif
