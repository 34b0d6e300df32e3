/* The PX5 layer of the POSIX port (ports/posix/rbp_posix_sys.h), for PX5 RTOS
 * 4.0 built from the user's own source (PX5 is commercial: no public source,
 * nothing of it is in this repository; docs/kernels.md, "PX5").
 *
 *   start-up    PX5 is a library: the board's vector table and start-up stay;
 *               PX5's own binding provides SysTick and PendSV handlers and
 *               starts its thread system on the first pthread call or its
 *               documented start call (RB_PX5_START, below)
 *   interrupts  the board's handlers stay in the board's vector table
 *   critical    PRIMASK (cpsid i), saved and restored: masks the tick and the
 *               test timer; PX5's own API has no portable critical section
 *   tick count  CLOCK_MONOTONIC in ticks of RB_CFG_TICK_HZ
 *   hooks       none claimed (RBP_SYS_CAPS): tick_overhead is NA
 *
 * RB_PX5_START: the call that starts PX5's thread system, given by the user's
 * port.cmake invocation (-DRB_PX5_START=...) when their PX5 version needs one
 * before the first pthread call. Unverified here: only a real PX5 source can
 * prove this layer (the CI compiles it against another system's POSIX
 * headers, tests/ports/posix-compile.sh). */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#include "rb_build_config.h"
#include "rb_port.h"
#include "rbp_posix_sys.h"

int rbp_sys_init(void) {
#ifdef RB_PX5_START
  RB_PX5_START;
#endif
  return 0;
}

int rbp_sys_sem_signalling(sem_t* s) {
  (void)s;
  return 0;
}

uint32_t rbp_sys_critical_enter(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}

void rbp_sys_critical_exit(uint32_t state) {
  __asm volatile("msr primask, %0" ::"r"(state) : "memory");
}

uint32_t rbp_sys_tick_count(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
    return 0;
  }
  return (uint32_t)((uint64_t)ts.tv_sec * RB_CFG_TICK_HZ +
                    (uint64_t)ts.tv_nsec / (1000000000u / RB_CFG_TICK_HZ));
}

/* CONFIG checks=: PX5's run-time checks (its Pointer/Data Verification) are
 * not switched by this port; "partial" says so. lookup: not known. */
const char rbp_sys_kernel[] = "px5";
const char rbp_sys_checks[] = "partial";
const char rbp_sys_lookup[] = "generic";
