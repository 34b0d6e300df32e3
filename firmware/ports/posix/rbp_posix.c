/* rtosbench port for POSIX systems (NuttX, PX5, ...): the harness port API
 * on the standard calls, written once; what POSIX does not define comes
 * from the system layer (rbp_posix_sys.h, one file per system).
 *
 *   tasks       pthread_create on the harness' stack (pthread_attr_setstack),
 *               explicit scheduling: SCHED_RR when time slicing is on (the
 *               system's round-robin interval is one tick), else SCHED_FIFO;
 *               neutral priority p -> sched_get_priority_min + RBP_SYS_PRIO_BASE + p
 *   start       the creating thread ran at the top priority while it created
 *               the tasks (none of them ran yet: the same start as every
 *               kernel's scheduler start); it then blocks for good
 *   semaphores  sem_init(0) + the system's attributes for signalling; sem_post
 *               / sem_wait. POSIX semaphores count; a valid harness run never
 *               gives twice without a take in between (as with RT-Thread)
 *   from ISR    sem_post, which POSIX lists as async-signal-safe and the
 *               systems here allow from an interrupt; the system switches on
 *               interrupt exit (isr_enter/isr_exit have nothing to do)
 *   queue       mq_open (mq_maxmsg 1, mq_msgsize 4) / mq_send / mq_receive
 *   mutex       pthread_mutex_init, PTHREAD_PRIO_INHERIT
 *   yield       sched_yield
 *   critical    the system's (rbp_sys_critical_enter/exit)
 *   delay       nanosleep for the ticks' duration (quiescing only)
 *   tick count  the system's (rbp_sys_tick_count) */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <time.h>

#include "rb_build_config.h"
#include "rb_port.h"
#include "rbp_posix_sys.h"

#if RB_TIME_SLICING
#define RB_PX_POLICY SCHED_RR
#define RB_PX_SLICE_CAP RBP_HAS_TIME_SLICE
#else
#define RB_PX_POLICY SCHED_FIFO
#define RB_PX_SLICE_CAP 0u
#endif

static pthread_t rb_px_thread[RBP_MAX_TASKS];
static rbp_entry_fn rb_px_entry[RBP_MAX_TASKS];
static void* rb_px_arg[RBP_MAX_TASKS];
static sem_t rb_px_sem[RBP_MAX_SEMS];
static mqd_t rb_px_queue[RBP_MAX_QUEUES];
static pthread_mutex_t rb_px_mutex[RBP_MAX_MUTEXES];
static sem_t rb_px_never; /* start() blocks on it for good */

static int rb_px_init(void) {
  /* The creator runs above every harness task until start(). */
  struct sched_param sp = {.sched_priority = sched_get_priority_max(SCHED_FIFO)};
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) != 0) {
    return RBP_ERR;
  }
  if (sem_init(&rb_px_never, 0, 0) != 0 || rbp_sys_sem_signalling(&rb_px_never) != 0) {
    return RBP_ERR;
  }
  return rbp_sys_init() == 0 ? RBP_OK : RBP_ERR;
}

static void* rb_px_trampoline(void* arg) {
  const int id = (int)(intptr_t)arg;
  rb_px_entry[id](rb_px_arg[id]);
  return 0;
}

static int rb_px_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                             uint32_t* stack, uint32_t stack_words) {
  (void)name;
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  rb_px_entry[id] = entry;
  rb_px_arg[id] = arg;
  pthread_attr_t attr;
  struct sched_param sp = {.sched_priority =
                               sched_get_priority_min(RB_PX_POLICY) + RBP_SYS_PRIO_BASE + prio};
  int rc = pthread_attr_init(&attr);
  rc = rc ? rc : pthread_attr_setstack(&attr, stack, stack_words * sizeof(uint32_t));
  rc = rc ? rc : pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  rc = rc ? rc : pthread_attr_setschedpolicy(&attr, RB_PX_POLICY);
  rc = rc ? rc : pthread_attr_setschedparam(&attr, &sp);
  rc = rc ? rc : pthread_create(&rb_px_thread[id], &attr, rb_px_trampoline, (void*)(intptr_t)id);
  (void)pthread_attr_destroy(&attr);
  return rc == 0 ? RBP_OK : RBP_ERR;
}

static void rb_px_start(void) {
  for (;;) {
    (void)sem_wait(&rb_px_never);
  }
}

static int rb_px_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  if (sem_init(&rb_px_sem[id], 0, 0) != 0) {
    return RBP_ERR;
  }
  return rbp_sys_sem_signalling(&rb_px_sem[id]) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_px_sem_give(int id) {
  return sem_post(&rb_px_sem[id]) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_px_sem_take(int id) {
  int rc;
  do {
    rc = sem_wait(&rb_px_sem[id]);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? RBP_OK : RBP_ERR;
}

static void rb_px_isr_nothing(void) {}

static int rb_px_queue_create(int id) {
  static const char* const names[RBP_MAX_QUEUES] = {"/rb_q0", "/rb_q1"};
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  struct mq_attr attr = {.mq_maxmsg = 1, .mq_msgsize = sizeof(uint32_t)};
  rb_px_queue[id] = mq_open(names[id], O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
  return rb_px_queue[id] == (mqd_t)-1 ? RBP_ERR : RBP_OK;
}

static int rb_px_queue_send(int id, uint32_t msg) {
  return mq_send(rb_px_queue[id], (const char*)&msg, sizeof msg, 0) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_px_queue_receive(int id, uint32_t* msg) {
  return mq_receive(rb_px_queue[id], (char*)msg, sizeof *msg, 0) == (ssize_t)sizeof *msg ? RBP_OK
                                                                                         : RBP_ERR;
}

static int rb_px_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  pthread_mutexattr_t attr;
  int rc = pthread_mutexattr_init(&attr);
#if RBP_SYS_CAPS & RBP_HAS_MUTEX_PI
  rc = rc ? rc : pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
#endif
  rc = rc ? rc : pthread_mutex_init(&rb_px_mutex[id], &attr);
  (void)pthread_mutexattr_destroy(&attr);
  return rc == 0 ? RBP_OK : RBP_ERR;
}

static int rb_px_mutex_lock(int id) {
  return pthread_mutex_lock(&rb_px_mutex[id]) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_px_mutex_unlock(int id) {
  return pthread_mutex_unlock(&rb_px_mutex[id]) == 0 ? RBP_OK : RBP_ERR;
}

static void rb_px_yield(void) {
  (void)sched_yield();
}

static void rb_px_delay(uint32_t ticks) {
  const uint64_t ns = (uint64_t)ticks * (1000000000u / RB_CFG_TICK_HZ);
  struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

const struct rbp_ops rbp_port = {
    .kernel = rbp_sys_kernel,
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RB_PX_SLICE_CAP | RBP_SYS_CAPS,
    .init = rb_px_init,
    .task_create = rb_px_task_create,
    .start = rb_px_start,
    .sem_create = rb_px_sem_create,
    .sem_give = rb_px_sem_give,
    .sem_take = rb_px_sem_take,
    .sem_give_from_isr = rb_px_sem_give,
    .isr_enter = rb_px_isr_nothing,
    .isr_exit = rb_px_isr_nothing,
    .queue_create = rb_px_queue_create,
    .queue_send = rb_px_queue_send,
    .queue_receive = rb_px_queue_receive,
    .mutex_create = rb_px_mutex_create,
    .mutex_lock = rb_px_mutex_lock,
    .mutex_unlock = rb_px_mutex_unlock,
    .yield = rb_px_yield,
    .critical_enter = rbp_sys_critical_enter,
    .critical_exit = rbp_sys_critical_exit,
    .delay = rb_px_delay,
    .tick_count = rbp_sys_tick_count,
    .checks = rbp_sys_checks,
    .lookup = rbp_sys_lookup,
#ifdef RBP_SYS_HEAP
    /* RBP_HAS_HEAP (in RBP_SYS_CAPS) */
    .heap_alloc = rbp_sys_heap_alloc,
    .heap_free = rbp_sys_heap_free,
    .heap_stats = rbp_sys_heap_stats,
#endif
};
