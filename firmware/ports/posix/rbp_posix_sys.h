/* The per-system layer of the POSIX port (docs/porting.md, "A POSIX
 * system"). rbp_posix.c implements the harness port API with standard
 * POSIX calls only (pthread, sem_t, mq_*, pthread_mutex with
 * PTHREAD_PRIO_INHERIT, sched_yield, nanosleep); what POSIX does not
 * define is asked of the system through these functions, one file per
 * system (firmware/ports/<system>/rbp_sys_<system>.c):
 *
 *   - how the board's interrupts reach the harness (the system owns the
 *     vector table) and at which NVIC priorities;
 *   - the kernel's critical section (POSIX has none an interrupt respects);
 *   - the kernel's tick count (POSIX clocks count time, not ticks);
 *   - semaphore attributes a signalling semaphore needs on this system;
 *   - the kernel's own allocator for the heap test (optional, RBP_SYS_HEAP);
 *   - the CONFIG strings: kernel name, checks=, lookup=.
 *
 * The tick hook and the idle hook are wired by the system layer too (they
 * are kernel callbacks, not POSIX); the capabilities they give are named by
 * RBP_SYS_CAPS in the system's rbp_sys_config.h. */
#ifndef RBP_POSIX_SYS_H
#define RBP_POSIX_SYS_H

#include <semaphore.h>
#include <stdint.h>

#include "rbp_sys_config.h"

/* From the port's init: connects the board's interrupt handlers (the test
 * timer and the empty interrupt) the system's way and sets the NVIC
 * priorities every port uses (SysTick and PendSV at RB_TICK_PRIO, the test
 * timer at RB_IRQ_PRIO). 0 on success. */
int rbp_sys_init(void);

/* After sem_init(s, 0, 0): what a semaphore used for signalling (not for
 * locking) needs on this system (NuttX: no priority inheritance). */
int rbp_sys_sem_signalling(sem_t* s);

/* The kernel's critical section: masks the test timer and the tick; the
 * returned state restores the previous level (nesting). */
uint32_t rbp_sys_critical_enter(void);
void rbp_sys_critical_exit(uint32_t state);

/* The kernel's tick count since start. */
uint32_t rbp_sys_tick_count(void);

/* The heap test's allocator, where the system's rbp_sys_config.h defines
 * RBP_SYS_HEAP (and puts RBP_HAS_HEAP into RBP_SYS_CAPS): the kernel's own
 * allocator on an RB_HEAP_BYTES arena of the system layer (POSIX's malloc
 * would use the system's whole heap, shared with the kernel's own
 * allocations, and POSIX has no call for its statistics). The contract is
 * rb_port.h's heap_alloc, heap_free, heap_stats. */
#ifdef RBP_SYS_HEAP
struct rbp_heap_stats;
void* rbp_sys_heap_alloc(uint32_t bytes);
int rbp_sys_heap_free(void* block);
int rbp_sys_heap_stats(struct rbp_heap_stats* s);
#endif

/* CONFIG kernel=, checks= and lookup= (the system's own macros, as this
 * build compiled them). */
extern const char rbp_sys_kernel[];
extern const char rbp_sys_checks[];
extern const char rbp_sys_lookup[];

#endif
