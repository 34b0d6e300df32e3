/* The bare port: no RTOS, a minimal correct implementation of the port API
 * that always switches through PendSV: the reference scheduler the kernels'
 * figures are set against (docs/firmware.md, "The bare port"). A reference,
 * not a lower bound: a kernel that switches synchronously in thread mode is
 * faster on the switch series.
 *
 * - Fixed-priority preemptive scheduling, levels 0 (idle) to RBP_PRIO_MAX.
 *   One FIFO ready list per level; the running task stays at the head of
 *   its list. A switch is requested by pending PendSV (lowest priority), and
 *   PendSV runs the highest non-empty list's head: tasks run on PSP,
 *   handlers on MSP.
 * - FP context (RB_CFG_FPU_CONTEXT=1): the hardware's lazy stacking saves
 *   s0-s15/FPSCR for a task whose CONTROL.FPCA is set; PendSV saves s16-s31
 *   when the task's EXC_RETURN says it has FP state (bit 4 clear).
 * - SysTick tick at RB_CFG_TICK_HZ: wakes delayed tasks and rotates the
 *   running task's level every tick when another task of that level is
 *   ready (time slicing).
 * - Binary semaphores, a one-slot queue, and mutexes with priority
 *   inheritance (transitive through mutex chains). Wait lists are ordered by
 *   priority, FIFO among equals; a give hands over directly to the waiter.
 * - Critical sections mask every interrupt (PRIMASK).
 * - Test only: built with RB_BARE_TEST_MASK_SPIN=N (CMake
 *   -DRB_BARE_TEST_MASK_SPIN=N, set by tests/firmware/mixed-load-mask.sh and
 *   nothing else), queue_send spins N loop passes with interrupts masked: a
 *   port whose IPC path masks too long, which mixed_load must show.
 */
#include <stdint.h>

#include "cm4_regs.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"

#define BARE_LEVELS (RBP_PRIO_MAX + 1)
#define BARE_IDLE RBP_MAX_TASKS /* index of the idle task in bare_tasks */

enum bare_state { BARE_UNUSED = 0, BARE_READY, BARE_BLOCKED, BARE_DELAYED };

struct bare_task;
struct bare_list {
  struct bare_task* head;
  struct bare_task* tail;
};

struct bare_mutex;
struct bare_task {
  uint32_t* sp; /* first member: PendSV saves and loads it at offset 0 */
  struct bare_task* next;
  struct bare_list* wait_list;   /* the list this task is blocked on */
  struct bare_mutex* wait_mutex; /* the mutex it waits for (inheritance chain) */
  uint32_t wake_tick;
  uint32_t msg; /* queue message handed over while blocked */
  uint8_t base_prio;
  uint8_t prio; /* effective: base or inherited */
  uint8_t state;
};

struct bare_sem {
  uint32_t count; /* 0 or 1 */
  struct bare_list waiters;
};

struct bare_queue {
  uint32_t slot;
  uint32_t full;
  struct bare_list receivers;
  struct bare_list senders;
};

struct bare_mutex {
  struct bare_task* owner;
  struct bare_list waiters;
};

static struct bare_task bare_tasks[RBP_MAX_TASKS + 1];
static struct bare_list bare_ready[BARE_LEVELS];
static uint32_t bare_ready_mask;
static struct bare_sem bare_sems[RBP_MAX_SEMS];
static struct bare_queue bare_queues[RBP_MAX_QUEUES];
static struct bare_mutex bare_mutexes[RBP_MAX_MUTEXES];
static volatile uint32_t bare_ticks;
static int bare_started;
static uint32_t bare_idle_stack[RB_STACK_WORDS] __attribute__((aligned(8)));

/* Read and written by PendSV_Handler. */
struct bare_task* volatile bare_current;

/* ---- interrupt masking and switch requests ------------------------------- */

static inline uint32_t bare_irq_save(void) {
  uint32_t primask;
  __asm volatile("mrs %0, primask\n\tcpsid i" : "=r"(primask)::"memory");
  return primask;
}

/* The ISB makes a PendSV pended inside the section be taken here, before the
 * caller goes on. */
static inline void bare_irq_restore(uint32_t primask) {
  __asm volatile("msr primask, %0\n\tisb" ::"r"(primask) : "memory");
}

static inline int bare_in_handler(void) {
  uint32_t ipsr;
  __asm volatile("mrs %0, ipsr" : "=r"(ipsr));
  return (ipsr & 0x1FFu) != 0u;
}

/* ---- lists ------------------------------------------------------------------ */

static void bare_list_push_tail(struct bare_list* l, struct bare_task* t) {
  t->next = 0;
  if (l->tail) {
    l->tail->next = t;
  } else {
    l->head = t;
  }
  l->tail = t;
}

static void bare_list_remove(struct bare_list* l, struct bare_task* t) {
  struct bare_task* prev = 0;
  for (struct bare_task* p = l->head; p; prev = p, p = p->next) {
    if (p == t) {
      if (prev) {
        prev->next = t->next;
      } else {
        l->head = t->next;
      }
      if (l->tail == t) {
        l->tail = prev;
      }
      t->next = 0;
      return;
    }
  }
}

/* Before the first task of lower priority: priority order, FIFO among equals. */
static void bare_list_insert_prio(struct bare_list* l, struct bare_task* t) {
  struct bare_task* prev = 0;
  struct bare_task* p = l->head;
  while (p && p->prio >= t->prio) {
    prev = p;
    p = p->next;
  }
  t->next = p;
  if (prev) {
    prev->next = t;
  } else {
    l->head = t;
  }
  if (!p) {
    l->tail = t;
  }
}

static struct bare_task* bare_list_pop(struct bare_list* l) {
  struct bare_task* t = l->head;
  if (t) {
    l->head = t->next;
    if (!l->head) {
      l->tail = 0;
    }
    t->next = 0;
  }
  return t;
}

/* ---- ready set ------------------------------------------------------------- */

static void bare_ready_add(struct bare_task* t) {
  t->state = BARE_READY;
  bare_list_push_tail(&bare_ready[t->prio], t);
  bare_ready_mask |= 1u << t->prio;
}

static void bare_ready_remove(struct bare_task* t) {
  bare_list_remove(&bare_ready[t->prio], t);
  if (!bare_ready[t->prio].head) {
    bare_ready_mask &= ~(1u << t->prio);
  }
}

static struct bare_task* bare_highest(void) {
  /* The idle task keeps level 0 non-empty. */
  return bare_ready[31u - (uint32_t)__builtin_clz(bare_ready_mask)].head;
}

/* Requests a switch when the task that should run is not the running one. */
static void bare_reschedule(void) {
  if (bare_started && bare_highest() != bare_current) {
    SCB_ICSR = SCB_ICSR_PENDSVSET;
    __asm volatile("dsb" ::: "memory");
  }
}

/* Called by PendSV_Handler with the outgoing context saved. */
__attribute__((used)) struct bare_task* bare_switch_pick(void) {
  const uint32_t s = bare_irq_save();
  struct bare_task* next = bare_highest();
  bare_current = next;
  bare_irq_restore(s);
  return next;
}

static void bare_block_current(struct bare_list* on) {
  struct bare_task* t = bare_current;
  bare_ready_remove(t);
  t->state = BARE_BLOCKED;
  t->wait_list = on;
  bare_list_insert_prio(on, t);
}

static void bare_wake(struct bare_task* t) {
  t->wait_list = 0;
  t->wait_mutex = 0;
  bare_ready_add(t);
}

/* ---- priority inheritance -------------------------------------------------- */

static void bare_set_prio(struct bare_task* t, uint8_t prio);

static void bare_inherit(struct bare_mutex* m, uint8_t prio) {
  if (m->owner && m->owner->prio < prio) {
    bare_set_prio(m->owner, prio);
  }
}

static void bare_set_prio(struct bare_task* t, uint8_t prio) {
  if (t->prio == prio) {
    return;
  }
  if (t->state == BARE_READY) {
    bare_ready_remove(t);
    t->prio = prio;
    bare_ready_add(t);
  } else if (t->state == BARE_BLOCKED) {
    bare_list_remove(t->wait_list, t);
    t->prio = prio;
    bare_list_insert_prio(t->wait_list, t);
    if (t->wait_mutex) {
      bare_inherit(t->wait_mutex, prio); /* transitive */
    }
  } else {
    t->prio = prio;
  }
}

/* Base priority, raised to the best waiter of every mutex t still holds. */
static void bare_restore_prio(struct bare_task* t) {
  uint8_t prio = t->base_prio;
  for (int i = 0; i < RBP_MAX_MUTEXES; i++) {
    const struct bare_mutex* m = &bare_mutexes[i];
    if (m->owner == t && m->waiters.head && m->waiters.head->prio > prio) {
      prio = m->waiters.head->prio;
    }
  }
  bare_set_prio(t, prio);
}

/* ---- operations ------------------------------------------------------------ */

/* Busy idle (rb_port.h: no WFI). A short spin between hook calls keeps the
 * loop cheap to emulate: QEMU resolves every return (bx lr) through a
 * lookup, so a call per pass makes idle time several times slower to run. */
static void bare_idle(void* arg) {
  (void)arg;
  for (;;) {
    rb_idle_hook();
    for (uint32_t i = 0; i < 64u; i++) {
      __asm volatile("nop");
    }
  }
}

static void bare_task_returned(void) {
  rb_fatal("bare: a task function returned");
}

static int bare_create(int index, rbp_entry_fn entry, void* arg, int prio, uint32_t* stack,
                       uint32_t words) {
  struct bare_task* t = &bare_tasks[index];
  if (bare_started || t->state != BARE_UNUSED || words < 64u) {
    return RBP_ERR;
  }
  uint32_t* sp = (uint32_t*)((uintptr_t)(stack + words) & ~(uintptr_t)7u);
  /* Hardware frame, as an exception entry would have stacked it. */
  *--sp = 0x01000000u;                             /* xPSR: Thumb */
  *--sp = (uint32_t)(uintptr_t)entry & ~1u;        /* pc */
  *--sp = (uint32_t)(uintptr_t)bare_task_returned; /* lr */
  *--sp = 0;                                       /* r12 */
  *--sp = 0;                                       /* r3 */
  *--sp = 0;                                       /* r2 */
  *--sp = 0;                                       /* r1 */
  *--sp = (uint32_t)(uintptr_t)arg;                /* r0 */
  /* Software frame: EXC_RETURN (thread mode, PSP, no FP state), r11..r4. */
  *--sp = 0xFFFFFFFDu;
  for (int r = 0; r < 8; r++) {
    *--sp = 0;
  }
  t->sp = sp;
  t->base_prio = (uint8_t)prio;
  t->prio = (uint8_t)prio;
  bare_ready_add(t);
  return RBP_OK;
}

static int bare_init(void) {
  return bare_create(BARE_IDLE, bare_idle, 0, 0, bare_idle_stack, RB_STACK_WORDS);
}

static int bare_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                            uint32_t* stack, uint32_t stack_words) {
  (void)name;
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  return bare_create(id, entry, arg, prio, stack, stack_words);
}

static void bare_start(void) {
  const uint32_t reload = RB_CORE_HZ / RB_CFG_TICK_HZ;
  if (reload < 2u || reload - 1u > 0xFFFFFFu) {
    rb_fatal("bare: RB_TICK_HZ out of the SysTick range for this core clock");
  }
  rb_cm_tick_prio_set();
  (void)bare_irq_save();
  rb_cm_systick_start(reload);
  bare_current = 0;
  bare_started = 1;
  SCB_ICSR = SCB_ICSR_PENDSVSET;
  /* PendSV runs the first task; main()'s context is never resumed. */
  bare_irq_restore(0);
  for (;;) {
  }
}

/* API argument checks (RB_CFG_CHECKS, CONFIG checks=): with RB_CHECKS=on
 * every operation on an object first checks its id, the check a kernel makes
 * of a handle; off (the default), the operations trust the harness, as the
 * kernels do with their checks off. */
#if RB_CFG_CHECKS
#define BARE_CHECK_ID(id, max)     \
  do {                             \
    if ((uint32_t)(id) >= (max)) { \
      return RBP_ERR;              \
    }                              \
  } while (0)
#else
#define BARE_CHECK_ID(id, max) ((void)0)
#endif

static int bare_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  bare_sems[id].count = 0;
  return RBP_OK;
}

static int bare_sem_give(int id) {
  BARE_CHECK_ID(id, RBP_MAX_SEMS);
  struct bare_sem* sem = &bare_sems[id];
  const uint32_t s = bare_irq_save();
  struct bare_task* t = bare_list_pop(&sem->waiters);
  if (t) {
    bare_wake(t);
    bare_reschedule();
  } else {
    sem->count = 1;
  }
  bare_irq_restore(s);
  return RBP_OK;
}

static int bare_sem_take(int id) {
  BARE_CHECK_ID(id, RBP_MAX_SEMS);
  struct bare_sem* sem = &bare_sems[id];
  const uint32_t s = bare_irq_save();
  if (sem->count) {
    sem->count = 0;
    bare_irq_restore(s);
    return RBP_OK;
  }
  if (!bare_started || bare_in_handler()) {
    bare_irq_restore(s);
    return RBP_ERR;
  }
  bare_block_current(&sem->waiters);
  bare_reschedule();
  bare_irq_restore(s); /* switches away here; resumes once given */
  return RBP_OK;
}

static void bare_isr_nothing(void) {}

static int bare_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  bare_queues[id].full = 0;
  return RBP_OK;
}

#if defined(RB_BARE_TEST_MASK_SPIN) && RB_BARE_TEST_MASK_SPIN > 0
static inline void bare_test_mask_spin(void) {
  for (uint32_t i = 0; i < RB_BARE_TEST_MASK_SPIN; i++) {
    __asm volatile("" ::: "memory");
  }
}
#else
static inline void bare_test_mask_spin(void) {}
#endif

static int bare_queue_send(int id, uint32_t msg) {
  BARE_CHECK_ID(id, RBP_MAX_QUEUES);
  struct bare_queue* q = &bare_queues[id];
  const uint32_t s = bare_irq_save();
  bare_test_mask_spin();
  struct bare_task* r = bare_list_pop(&q->receivers);
  if (r) {
    r->msg = msg;
    bare_wake(r);
    bare_reschedule();
  } else if (!q->full) {
    q->slot = msg;
    q->full = 1;
  } else {
    if (!bare_started || bare_in_handler()) {
      bare_irq_restore(s);
      return RBP_ERR;
    }
    /* Full: wait; the receiver that frees the slot moves msg into it. */
    bare_current->msg = msg;
    bare_block_current(&q->senders);
    bare_reschedule();
  }
  bare_irq_restore(s);
  return RBP_OK;
}

static int bare_queue_receive(int id, uint32_t* msg) {
  BARE_CHECK_ID(id, RBP_MAX_QUEUES);
  struct bare_queue* q = &bare_queues[id];
  const uint32_t s = bare_irq_save();
  if (q->full) {
    *msg = q->slot;
    struct bare_task* w = bare_list_pop(&q->senders);
    if (w) {
      q->slot = w->msg;
      bare_wake(w);
      bare_reschedule();
    } else {
      q->full = 0;
    }
    bare_irq_restore(s);
    return RBP_OK;
  }
  if (!bare_started || bare_in_handler()) {
    bare_irq_restore(s);
    return RBP_ERR;
  }
  struct bare_task* self = bare_current;
  bare_block_current(&q->receivers);
  bare_reschedule();
  bare_irq_restore(s); /* resumes with the message handed over */
  *msg = self->msg;
  return RBP_OK;
}

static int bare_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  bare_mutexes[id].owner = 0;
  return RBP_OK;
}

static int bare_mutex_lock(int id) {
  BARE_CHECK_ID(id, RBP_MAX_MUTEXES);
  struct bare_mutex* m = &bare_mutexes[id];
  const uint32_t s = bare_irq_save();
  struct bare_task* self = bare_current;
  if (!m->owner) {
    m->owner = self;
    bare_irq_restore(s);
    return RBP_OK;
  }
  if (m->owner == self || !bare_started || bare_in_handler()) {
    bare_irq_restore(s); /* not recursive; no waiting outside tasks */
    return RBP_ERR;
  }
  bare_block_current(&m->waiters);
  self->wait_mutex = m;
  bare_inherit(m, self->prio);
  bare_reschedule();
  bare_irq_restore(s); /* resumes as the owner: unlock hands over */
  return m->owner == self ? RBP_OK : RBP_ERR;
}

static int bare_mutex_unlock(int id) {
  BARE_CHECK_ID(id, RBP_MAX_MUTEXES);
  struct bare_mutex* m = &bare_mutexes[id];
  const uint32_t s = bare_irq_save();
  struct bare_task* self = bare_current;
  if (m->owner != self) {
    bare_irq_restore(s);
    return RBP_ERR;
  }
  struct bare_task* w = bare_list_pop(&m->waiters);
  m->owner = w;
  if (w) {
    bare_wake(w);
  }
  bare_restore_prio(self);
  bare_reschedule();
  bare_irq_restore(s);
  return RBP_OK;
}

static void bare_yield(void) {
  const uint32_t s = bare_irq_save();
  struct bare_task* t = bare_current;
  bare_ready_remove(t);
  bare_ready_add(t);
  bare_reschedule();
  bare_irq_restore(s);
}

static uint32_t bare_critical_enter(void) {
  return bare_irq_save();
}

static void bare_critical_exit(uint32_t state) {
  bare_irq_restore(state);
}

static void bare_delay(uint32_t ticks) {
  if (ticks == 0u) {
    bare_yield();
    return;
  }
  const uint32_t s = bare_irq_save();
  struct bare_task* t = bare_current;
  bare_ready_remove(t);
  t->state = BARE_DELAYED;
  t->wake_tick = bare_ticks + ticks;
  bare_reschedule();
  bare_irq_restore(s);
}

static uint32_t bare_tick_count(void) {
  return bare_ticks;
}

void SysTick_Handler(void) {
  rb_tick_hook();
  const uint32_t s = bare_irq_save();
  const uint32_t now = ++bare_ticks;
  for (int i = 0; i <= BARE_IDLE; i++) {
    struct bare_task* t = &bare_tasks[i];
    if (t->state == BARE_DELAYED && (int32_t)(now - t->wake_tick) >= 0) {
      bare_ready_add(t);
    }
  }
  struct bare_task* cur = bare_current;
  if (cur && cur->state == BARE_READY) {
    struct bare_list* level = &bare_ready[cur->prio];
    if (level->head == cur && cur->next) {
      bare_list_pop(level);
      bare_list_push_tail(level, cur);
    }
  }
  bare_reschedule();
  bare_irq_restore(s);
}

__attribute__((naked)) void PendSV_Handler(void) {
  __asm volatile(
      "mrs r0, psp\n\t"
      "movw r3, #:lower16:bare_current\n\t"
      "movt r3, #:upper16:bare_current\n\t"
      "ldr r2, [r3]\n\t"
      "cbz r2, 1f\n\t" /* first switch: no outgoing task */
#if RB_CFG_FPU_CONTEXT
      "tst lr, #0x10\n\t"
      "it eq\n\t"
      "vstmdbeq r0!, {s16-s31}\n\t"
#endif
      "stmdb r0!, {r4-r11, lr}\n\t"
      "str r0, [r2]\n\t"
      "1:\n\t"
      "bl bare_switch_pick\n\t"
      "ldr r0, [r0]\n\t"
      "ldmia r0!, {r4-r11, lr}\n\t"
#if RB_CFG_FPU_CONTEXT
      "tst lr, #0x10\n\t"
      "it eq\n\t"
      "vldmiaeq r0!, {s16-s31}\n\t"
#endif
      "msr psp, r0\n\t"
      "bx lr\n\t");
}

/* CONFIG checks= and lookup=: the id checks above as compiled; the ready set
 * is a bit mask searched with __builtin_clz (bare_highest), the CLZ
 * instruction. */
#if RB_CFG_CHECKS
#define RB_PORT_CHECKS "on"
#else
#define RB_PORT_CHECKS "off"
#endif
#define RB_PORT_LOOKUP "clz"

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* No RBP_HAS_HEAP: the reference scheduler has no allocator of its own, and
 * newlib's malloc would be a C library's figure, not a reference for the
 * kernels' allocators; the heap test is NA here. */
const struct rbp_ops rbp_port = {
    .kernel = "bare",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TIME_SLICE | RBP_HAS_TICK_HOOK |
            RBP_HAS_IDLE_HOOK,
    .init = bare_init,
    .task_create = bare_task_create,
    .start = bare_start,
    .sem_create = bare_sem_create,
    .sem_give = bare_sem_give,
    .sem_take = bare_sem_take,
    .sem_give_from_isr = bare_sem_give,
    .isr_enter = bare_isr_nothing,
    .isr_exit = bare_isr_nothing,
    .queue_create = bare_queue_create,
    .queue_send = bare_queue_send,
    .queue_receive = bare_queue_receive,
    .mutex_create = bare_mutex_create,
    .mutex_lock = bare_mutex_lock,
    .mutex_unlock = bare_mutex_unlock,
    .yield = bare_yield,
    .critical_enter = bare_critical_enter,
    .critical_exit = bare_critical_exit,
    .delay = bare_delay,
    .tick_count = bare_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
};
