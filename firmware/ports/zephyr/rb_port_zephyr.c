/* rtosbench port for Zephyr (3.5.0), built as an out-of-tree Zephyr
 * application (app/, image.cmake): Zephyr owns reset, the vector table and
 * its init levels and calls the harness' main() from its main thread.
 *
 * Every harness operation is one Zephyr API call:
 *   threads     k_thread_create on the harness' 512-word stacks (no MPU, no
 *               guard, no TLS, no random offset: the whole 2 KB is the
 *               thread's), delay K_FOREVER; start() k_thread_start()s them
 *   semaphores  k_sem_init(0, 1) / k_sem_give / k_sem_take(K_FOREVER)
 *   from ISR    k_sem_give in the test timer's ISR, connected with
 *               IRQ_CONNECT: Zephyr's _isr_wrapper ends in z_arm_int_exit,
 *               which pends PendSV when the give readied a higher thread
 *   queue       k_msgq of one uint32_t / k_msgq_put / k_msgq_get (K_FOREVER)
 *   mutex       k_mutex_init / k_mutex_lock(K_FOREVER) / k_mutex_unlock
 *               (priority inheritance is built into k_mutex)
 *   yield       k_yield
 *   critical    irq_lock / irq_unlock (BASEPRI at _EXC_IRQ_DEFAULT_PRIO:
 *               masks the test timer and SysTick)
 *   delay       k_sleep(K_TICKS(n)); tick count k_uptime_ticks
 * Tick hook: Zephyr has none; SysTick's vector reaches sys_clock_isr
 * through __wrap_sys_clock_isr below (-Wl,--wrap=sys_clock_isr, app/).
 * Idle: in a periodic build, a busy thread at the lowest application
 * priority (below every harness task, above Zephyr's idle thread) calls
 * rb_idle_hook in a loop with interrupts enabled, as the ThreadX port's idle
 * task does: Zephyr's own idle thread runs its hook inside arch_cpu_idle
 * after `cpsid i`, so an interrupt that arrives in idle would wait for the
 * hook's PRIMASK window (idle irq_entry 25 against busy 14 under QEMU). It
 * never blocks, so Zephyr's idle thread never runs. A tickless build
 * (RB_CFG_TICKLESS, CONFIG_TICKLESS_KERNEL=y) has no busy thread: Zephyr's
 * idle thread calls z_arm_on_enter_cpu_idle() (CONFIG_ARM_ON_ENTER_CPU_IDLE_HOOK)
 * before its WFI, which returns true, and sleeps in that WFI while the
 * SysTick driver holds the tick off until the next timeout. */
#include <zephyr/irq.h>
#include <zephyr/kernel.h>
#include <zephyr/sys/sys_heap.h>

/* sys_heap's private chunk accessors (lib/os/heap.h, app/CMakeLists.txt). */
#include "cm4_regs.h"
#include "heap.h"
#include "rb_board_hw.h"
#include "rb_port.h"

/* The board's handlers (boards/<board>/board.c), named by port.cmake. */
void RB_ZEPHYR_TEST_ISR(void);
void RB_ZEPHYR_EMPTY_ISR(void);
void RB_ZEPHYR_ZLI_ISR(void);
#ifdef RB_ZEPHYR_STOP_IRQN
void RB_ZEPHYR_STOP_ISR(void);
#endif

static struct k_thread rb_zep_thread[RBP_MAX_TASKS];
static k_tid_t rb_zep_tid[RBP_MAX_TASKS];
static struct k_sem rb_zep_sem[RBP_MAX_SEMS];
static struct k_msgq rb_zep_msgq[RBP_MAX_QUEUES];
static uint32_t rb_zep_msgq_buf[RBP_MAX_QUEUES][1] __attribute__((aligned(4)));
static struct k_mutex rb_zep_mutex[RBP_MAX_MUTEXES];

/* Neutral 1 (lowest task) .. 8 (highest) onto Zephyr's preemptible
 * priorities 7 .. 0 (lower is higher; CONFIG_NUM_PREEMPT_PRIORITIES=9: the
 * busy idle thread at 8, Zephyr's idle thread at 9). Equal stays equal. */
#define RB_ZEP_PRIO(p) (RBP_PRIO_MAX - (p))
#define RB_ZEP_BUSY_IDLE_PRIO K_LOWEST_APPLICATION_THREAD_PRIO
BUILD_ASSERT(RB_ZEP_PRIO(RBP_PRIO_MIN) < RB_ZEP_BUSY_IDLE_PRIO,
             "every neutral priority must be a preemptible Zephyr priority above the busy idle");

/* Zephyr's IRQ_CONNECT priority p lands in the NVIC at p + _IRQ_PRIO_OFFSET
 * (the SVC reservation): subtract it, so the test timer ends at RB_IRQ_PRIO
 * like every kernel's (CONFIG irq_prio reads it back). */
#define RB_ZEP_IRQ_PRIO (RB_IRQ_PRIO - _IRQ_PRIO_OFFSET)
BUILD_ASSERT(RB_ZEP_IRQ_PRIO >= 0, "the test timer's level is above Zephyr's reserved levels");

/* ---- Kernel callbacks --------------------------------------------------- */

void __real_sys_clock_isr(const void* arg);
void __wrap_sys_clock_isr(const void* arg);

/* SysTick's vector: the harness' tick hook, then Zephyr's tick handler
 * (which announces the tick and ends in z_arm_int_exit). */
void __wrap_sys_clock_isr(const void* arg) {
  rb_tick_hook();
  __real_sys_clock_isr(arg);
}

/* From every pass of Zephyr's idle thread, interrupts masked (PRIMASK):
 * only a tickless build gets here (a periodic build's busy idle thread never
 * blocks); true: Zephyr sleeps in its WFI. */
bool z_arm_on_enter_cpu_idle(void) {
  rb_idle_hook();
  return true;
}

#if !RB_CFG_TICKLESS
static struct k_thread rb_zep_idle_thread;
static K_THREAD_STACK_DEFINE(rb_zep_idle_stack, RB_STACK_WORDS * sizeof(uint32_t));

/* The periodic build's idle: never blocks, never sleeps (see the header). */
static void rb_zep_idle_entry(void* p1, void* p2, void* p3) {
  ARG_UNUSED(p1);
  ARG_UNUSED(p2);
  ARG_UNUSED(p3);
  for (;;) {
    rb_idle_hook();
  }
}
#endif

/* The test timer, connected the Zephyr way: the ISR table entry of
 * IRQ_CONNECT, run by _isr_wrapper, which exits through z_arm_int_exit. */
static void rb_zep_test_isr(const void* arg) {
  ARG_UNUSED(arg);
  RB_ZEPHYR_TEST_ISR();
}

/* tick_overhead's empty interrupt, connected as the test timer is: the
 * harness measures it on the raw vector (series tick_irq_empty) and through
 * this connection (irq_dispatch: _isr_wrapper's cost). */
static void rb_zep_empty_isr(const void* arg) {
  ARG_UNUSED(arg);
  RB_ZEPHYR_EMPTY_ISR();
}

#ifdef RB_ZEPHYR_STOP_IRQN
/* sleep_wake's STOP wake-up (boards with RB_BOARD_HAS_STOP): it gives a
 * semaphore, so it is connected like the test timer. */
static void rb_zep_stop_isr(const void* arg) {
  ARG_UNUSED(arg);
  RB_ZEPHYR_STOP_ISR();
}
#endif

/* ---- Port operations ---------------------------------------------------- */

/* Zephyr's entry takes three arguments, the harness' one: the thread starts
 * here (once, outside every measurement) with the entry and its argument. */
static void rb_zep_thread_entry(void* entry, void* arg, void* unused) {
  ARG_UNUSED(unused);
  ((rbp_entry_fn)entry)(arg);
}

static int rb_zep_init(void) {
  IRQ_CONNECT(RB_TEST_IRQN, RB_ZEP_IRQ_PRIO, rb_zep_test_isr, NULL, 0);
  IRQ_CONNECT(RB_ZEPHYR_EMPTY_IRQN, RB_ZEP_IRQ_PRIO, rb_zep_empty_isr, NULL, 0);
  /* zero_latency_irq's timer: in the vector table directly, at Zephyr's
   * zero-latency level (CONFIG_ZERO_LATENCY_IRQS: NVIC level 0, above
   * irq_lock's BASEPRI); its handler calls no kernel function. */
  IRQ_DIRECT_CONNECT(RB_ZEPHYR_ZLI_IRQN, 0, RB_ZEPHYR_ZLI_ISR, IRQ_ZERO_LATENCY);
#ifdef RB_ZEPHYR_STOP_IRQN
  IRQ_CONNECT(RB_ZEPHYR_STOP_IRQN, RB_ZEP_IRQ_PRIO, rb_zep_stop_isr, NULL, 0);
#endif
  return RBP_OK;
}

static int rb_zep_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                              uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  (void)name; /* CONFIG_THREAD_NAME=n */
  rb_zep_tid[id] =
      k_thread_create(&rb_zep_thread[id], (k_thread_stack_t*)stack, stack_words * sizeof(uint32_t),
                      rb_zep_thread_entry, (void*)entry, arg, NULL, RB_ZEP_PRIO(prio),
#if RB_CFG_FPU_CONTEXT
                      K_FP_REGS,
#else
                      0,
#endif
                      K_FOREVER);
  return rb_zep_tid[id] != NULL ? RBP_OK : RBP_ERR;
}

static void rb_zep_start(void) {
  /* Zephyr's SysTick driver runs since PRE_KERNEL_2 at
   * CONFIG_SYS_CLOCK_TICKS_PER_SEC from CONFIG_SYS_CLOCK_HW_CYCLES_PER_SEC
   * (RB_CFG_TICK_HZ, RB_CORE_HZ) but at NVIC level _IRQ_PRIO_OFFSET (1);
   * every kernel's tick is at RB_TICK_PRIO. PendSV is already the lowest. */
  rb_cm_tick_prio_set();
  /* The tick has been running since boot, and the host's start line arrived
   * at no fixed time: restart its period here, as every kernel's start does
   * (rb_cm_systick_start, the reload Zephyr's driver programmed), so the tick
   * phase of every test is the same from run to run. Zephyr's periodic
   * (non-tickless) driver announces one tick per interrupt and needs no
   * other state; a SysTick already pending is dropped with the old period. */
  /* The tickless driver keeps its own count of the cycles SysTick ran
   * (cycle_count, announced_cycles, last_load) and reprograms the reload at
   * every timeout: a restart behind its back would lose time, so a tickless
   * build keeps the phase the driver has. */
#if !RB_CFG_TICKLESS
  const unsigned int key = irq_lock();
  rb_cm_systick_start(RB_CORE_HZ / RB_CFG_TICK_HZ);
  SCB_ICSR = 1u << 25; /* PENDSTCLR */
  irq_unlock(key);
#endif
  /* The main thread is cooperative (CONFIG_MAIN_THREAD_PRIORITY=-1): none
   * of these runs before it blocks. */
#if !RB_CFG_TICKLESS
  k_thread_create(&rb_zep_idle_thread, rb_zep_idle_stack, K_THREAD_STACK_SIZEOF(rb_zep_idle_stack),
                  rb_zep_idle_entry, NULL, NULL, NULL, RB_ZEP_BUSY_IDLE_PRIO, 0, K_NO_WAIT);
#endif
  for (int id = 0; id < RBP_MAX_TASKS; id++) {
    if (rb_zep_tid[id] != NULL) {
      k_thread_start(rb_zep_tid[id]);
    }
  }
  /* The main thread is essential (it may not end): it sleeps for good. */
  for (;;) {
    k_sleep(K_FOREVER);
  }
}

static int rb_zep_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  return k_sem_init(&rb_zep_sem[id], 0, 1) == 0 ? RBP_OK : RBP_ERR; /* empty, limit 1 */
}

static int rb_zep_sem_give(int id) {
  k_sem_give(&rb_zep_sem[id]); /* at the limit the count stays 1 */
  return RBP_OK;
}

static int rb_zep_sem_take(int id) {
  return k_sem_take(&rb_zep_sem[id], K_FOREVER) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_zep_sem_give_from_isr(int id) {
  /* The switch happens on interrupt exit: z_arm_int_exit in _isr_wrapper. */
  k_sem_give(&rb_zep_sem[id]);
  return RBP_OK;
}

/* Zephyr's _isr_wrapper does the interrupt bookkeeping itself. */
static void rb_zep_isr_nothing(void) {}

static int rb_zep_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  k_msgq_init(&rb_zep_msgq[id], (char*)rb_zep_msgq_buf[id], sizeof(uint32_t), 1);
  return RBP_OK;
}

static int rb_zep_queue_send(int id, uint32_t msg) {
  return k_msgq_put(&rb_zep_msgq[id], &msg, K_FOREVER) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_zep_queue_receive(int id, uint32_t* msg) {
  return k_msgq_get(&rb_zep_msgq[id], msg, K_FOREVER) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_zep_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  return k_mutex_init(&rb_zep_mutex[id]) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_zep_mutex_lock(int id) {
  return k_mutex_lock(&rb_zep_mutex[id], K_FOREVER) == 0 ? RBP_OK : RBP_ERR;
}

static int rb_zep_mutex_unlock(int id) {
  return k_mutex_unlock(&rb_zep_mutex[id]) == 0 ? RBP_OK : RBP_ERR;
}

static void rb_zep_yield(void) {
  k_yield();
}

static uint32_t rb_zep_critical_enter(void) {
  return irq_lock(); /* the previous BASEPRI: nests */
}

static void rb_zep_critical_exit(uint32_t state) {
  irq_unlock(state);
}

static void rb_zep_delay(uint32_t ticks) {
  k_sleep(K_TICKS(ticks));
}

static uint32_t rb_zep_tick_count(void) {
  return (uint32_t)k_uptime_ticks();
}

/* CONFIG checks= and lookup=, from Zephyr's own configuration as compiled
 * (prj.conf and rb_zephyr.conf, which follows RB_CHECKS). Checks are
 * __ASSERT (CONFIG_ASSERT) and CHECKIF (off only under
 * CONFIG_NO_RUNTIME_CHECKS, zephyr/sys/check.h): one without the other is
 * partial. */
#if defined(CONFIG_ASSERT) && CONFIG_ASSERT && !defined(CONFIG_NO_RUNTIME_CHECKS)
#define RB_PORT_CHECKS "on"
#elif !(defined(CONFIG_ASSERT) && CONFIG_ASSERT) && defined(CONFIG_NO_RUNTIME_CHECKS)
#define RB_PORT_CHECKS "off"
#else
#define RB_PORT_CHECKS "partial"
#endif
#if defined(CONFIG_SCHED_MULTIQ)
#define RB_PORT_LOOKUP "clz" /* kernel/sched.c z_priq_mq_best: u32_count_trailing_zeros */
#else
#define RB_PORT_LOOKUP "generic"
#endif

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* ---- Heap (RBP_HAS_HEAP): a k_heap over a static RB_HEAP_BYTES buffer ----
 * K_HEAP_DEFINE: Zephyr's sys_heap (8-byte chunks, buckets of free chunks by
 * size class, merged on free) behind the k_heap's spinlock; the buffer also
 * holds the heap's own header and bucket array. k_heap_alloc aligns only to
 * sizeof(void*) (4: a small heap's chunk header is 4 bytes), so the port
 * asks for 8 through k_heap_aligned_alloc (declared unequal work,
 * kernel.yaml). K_NO_WAIT: no waiting. Free bytes: the free chunks' bytes,
 * headers included (what sys_heap_runtime_stats_get would count), by a walk
 * over the chunks with sys_heap's own accessors (lib/os/heap.h, as
 * heap-validate.c's get_alloc_info walks them: the free chunks the free
 * lists hold, a big heap's one-unit solo headers left out, as the runtime
 * statistics count them) under the k_heap's lock, outside any window:
 * CONFIG_SYS_HEAP_RUNTIME_STATS is off, so the timed calls keep no counts
 * (app/prj.conf). Largest: Zephyr has no call for it; the port probes the
 * largest request k_heap_alloc serves, by bisection with k_heap_alloc /
 * k_heap_free (free merges the chunk back), outside any window. */
K_HEAP_DEFINE(rb_zep_heap, RB_HEAP_BYTES);

static void* rb_zep_heap_alloc(uint32_t bytes) {
  return k_heap_aligned_alloc(&rb_zep_heap, 8u, (size_t)bytes, K_NO_WAIT);
}

static int rb_zep_heap_free(void* block) {
  k_heap_free(&rb_zep_heap, block);
  return RBP_OK;
}

/* The probe asks k_heap_alloc at the kernel's default alignment. */
static void* rb_zep_heap_probe_alloc(uint32_t bytes) {
  return k_heap_alloc(&rb_zep_heap, (size_t)bytes, K_NO_WAIT);
}

static void rb_zep_heap_release(void* block) {
  k_heap_free(&rb_zep_heap, block);
}

static uint32_t rb_zep_heap_free_bytes(void) {
  k_spinlock_key_t key = k_spin_lock(&rb_zep_heap.lock);
  struct z_heap* h = rb_zep_heap.heap.heap;
  uint32_t free_bytes = 0;
  for (chunkid_t c = right_chunk(h, 0); c < h->end_chunk; c = right_chunk(h, c)) {
    if (!chunk_used(h, c) && !solo_free_header(h, c)) {
      free_bytes += (uint32_t)chunksz_to_bytes(h, chunk_size(h, c));
    }
  }
  k_spin_unlock(&rb_zep_heap.lock, key);
  return free_bytes;
}

static int rb_zep_heap_stats(struct rbp_heap_stats* s) {
  s->arena_bytes = RB_HEAP_BYTES;
  s->free_bytes = rb_zep_heap_free_bytes();
  s->largest_free =
      rbp_largest_request(s->free_bytes, rb_zep_heap_probe_alloc, rb_zep_heap_release);
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "zephyr",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK
#if defined(CONFIG_TIMESLICING) && CONFIG_TIMESLICING
            | RBP_HAS_TIME_SLICE
#endif
            | RBP_HAS_HEAP | RBP_HAS_ZERO_LATENCY_IRQ,
    .init = rb_zep_init,
    .task_create = rb_zep_task_create,
    .start = rb_zep_start,
    .sem_create = rb_zep_sem_create,
    .sem_give = rb_zep_sem_give,
    .sem_take = rb_zep_sem_take,
    .sem_give_from_isr = rb_zep_sem_give_from_isr,
    .isr_enter = rb_zep_isr_nothing,
    .isr_exit = rb_zep_isr_nothing,
    .queue_create = rb_zep_queue_create,
    .queue_send = rb_zep_queue_send,
    .queue_receive = rb_zep_queue_receive,
    .mutex_create = rb_zep_mutex_create,
    .mutex_lock = rb_zep_mutex_lock,
    .mutex_unlock = rb_zep_mutex_unlock,
    .yield = rb_zep_yield,
    .critical_enter = rb_zep_critical_enter,
    .critical_exit = rb_zep_critical_exit,
    .delay = rb_zep_delay,
    .tick_count = rb_zep_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_zep_heap_alloc,
    .heap_free = rb_zep_heap_free,
    .heap_stats = rb_zep_heap_stats,

    /* zero_latency_irq: irq_lock raises BASEPRI to _EXC_IRQ_DEFAULT_PRIO
     * (level _IRQ_PRIO_OFFSET, 2 with CONFIG_ZERO_LATENCY_IRQS); the
     * zero-latency level _EXC_ZERO_LATENCY_IRQS_PRIO (0) stays unmasked. */
    .zero_latency_prio = _EXC_ZERO_LATENCY_IRQS_PRIO,
};
