/* ThreadX user configuration of the rtosbench ThreadX port (ThreadX 6.2.0,
 * ports/cortex_m4/gnu, cortex_m3/gnu or cortex_m33/gnu; on the Cortex-M33
 * port.cmake defines TX_SINGLE_MODE_SECURE on the command line, as its
 * assembly files read it too). Everything not set here is ThreadX' own default:
 * timer thread on (TX_TIMER_PROCESS_IN_ISR not defined), no trace, no event
 * logging, no execution profiling, 32 priorities. API error checking follows
 * RB_CFG_CHECKS (off by default, seed 000). docs/kernels.md explains each
 * choice. */
#ifndef TX_USER_H
#define TX_USER_H

#include "rb_port.h" /* RB_STACK_WORDS; rb_build_config.h: RB_CFG_CHECKS */

/* API error checking (CONFIG checks=): tx_api.h maps every tx_* service to
 * its _txe_* checking wrapper unless TX_DISABLE_ERROR_CHECKING is defined.
 * Off by default, as seed 000 runs the kernels; RB_CHECKS=on leaves it
 * undefined (ThreadX' own default). ThreadX has no asserts. */
#if !RB_CFG_CHECKS
#define TX_DISABLE_ERROR_CHECKING
#endif

/* The timer thread gets the same 512-word stack as every other task. */
#define TX_TIMER_THREAD_STACK_SIZE (RB_STACK_WORDS * 4u)

/* The harness fills every stack with its own pattern before creating the
 * task and reads the high-water mark from it (END stack_min_free_words);
 * ThreadX' own 0xEF fill at creation would erase it. Creation only: no
 * measured path changes. */
#define TX_DISABLE_STACK_FILLING

#endif
