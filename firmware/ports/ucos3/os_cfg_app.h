/* uC/OS-III 3.08.00 application configuration of the rtosbench ucos3 port:
 * kernel task stacks and rates. Every kernel stack is RB_STACK_WORDS (512)
 * words, the ISR stack (the MSP once the kernel runs) included; priorities and
 * rates are the kernel's shipped defaults; the tick rate is the build's. */
#ifndef OS_CFG_APP_H
#define OS_CFG_APP_H

#include "rb_build_config.h" /* RB_CFG_TICK_HZ */
#include "rb_port.h"         /* RB_STACK_WORDS */

#define OS_CFG_ISR_STK_SIZE RB_STACK_WORDS
#define OS_CFG_MSG_POOL_SIZE 32u
#define OS_CFG_TASK_STK_LIMIT_PCT_EMPTY 10u

#define OS_CFG_IDLE_TASK_STK_SIZE RB_STACK_WORDS

/* Statistics task: compiled out (OS_CFG_STAT_TASK_EN 0); values kept valid. */
#define OS_CFG_STAT_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 2u))
#define OS_CFG_STAT_TASK_RATE_HZ 10u
#define OS_CFG_STAT_TASK_STK_SIZE RB_STACK_WORDS

#define OS_CFG_TICK_RATE_HZ RB_CFG_TICK_HZ

#define OS_CFG_TMR_TASK_PRIO ((OS_PRIO)(OS_CFG_PRIO_MAX - 3u))
#define OS_CFG_TMR_TASK_STK_SIZE RB_STACK_WORDS
#define OS_CFG_TMR_TASK_RATE_HZ 10u

#endif
