/* The port API: what the kernel-neutral harness needs from a kernel.
 *
 * A port (firmware/ports/<name>/) defines one constant table `rbp_port` of
 * type `struct rbp_ops`. The harness calls the kernel only through this
 * table: a test loads the operation's pointer from the table (outside the
 * measurement) and passes it to a measurement window (harness/window.c), a
 * noinline routine that reads the counter, calls the operation(s) with
 * `blx <register>` and reads the counter again. The window's code is the
 * same on every kernel, and the ruler runs the same routine with an empty
 * operation (docs/firmware.md, "Measurement windows"), so the net figure of a
 * series is the operation's own instructions minus the empty operation's
 * two (`movs r0, #0; bx lr`) per call. tests/firmware/window-disasm.sh
 * checks this on the built images.
 *
 * Objects are named by small integer IDs chosen by the harness
 * (0 <= id < RBP_MAX_*); the port keeps its kernel objects in static arrays
 * indexed by ID. Every object and task is created before `start`, never
 * deleted. No heap is needed (the heap test's operations, RBP_HAS_HEAP, use
 * the kernel's allocator on its own arena, RB_HEAP_BYTES).
 *
 * Priorities use one neutral scale, RBP_PRIO_MIN (1, lowest task) to
 * RBP_PRIO_MAX (8, highest); the kernel's idle task is below 1. A port maps
 * the scale onto its kernel monotonically (e.g. ThreadX: 31 - p). Equal
 * neutral priorities must map to equal kernel priorities (time slicing).
 *
 * What a kernel cannot do is declared by leaving its capability flag out of
 * `caps` (the operation may then be NULL); the harness reports the affected
 * test or series as NA with a reason, never as a number.
 *
 * Interrupt priorities (same for every kernel; levels of the board's
 * RB_NVIC_PRIO_BITS implemented bits, from boards/<board>/board.cmake through
 * rb_build_config.h; STM32F4: 4 bits): SysTick and PendSV at RB_TICK_PRIO
 * (15 there, lowest), the harness' test timer at RB_IRQ_PRIO (14 there). The test-timer ISR calls
 * sem_give_from_isr (the notify test: notify_give_from_isr), so a port whose kernel masks
 * interrupts by priority (BASEPRI) must allow
 * kernel calls from RB_IRQ_PRIO (FreeRTOS: configMAX_SYSCALL_INTERRUPT_PRIORITY <=
 * RB_PRIO_BYTE(RB_IRQ_PRIO)). The firmware reads both priorities back and reports them in CONFIG.
 *
 * Return values: 0 (RBP_OK) on success, a negative value on failure. The
 * harness treats any failure of an operation during a test as fatal for the
 * run: it prints a `!! port error` line and stops (the host then times out
 * and reports the capture as truncated), because a number measured around a
 * failed kernel call would be meaningless.
 */
#ifndef RB_PORT_H
#define RB_PORT_H

#include <stdint.h>

#include "rb_build_config.h" /* RB_NVIC_PRIO_BITS, RB_TICK_PRIO, RB_IRQ_PRIO */

#define RBP_OK 0
#define RBP_ERR (-1)

/* Neutral priority scale. */
#define RBP_PRIO_MIN 1
#define RBP_PRIO_MAX 8

/* Object ID spaces: ports size their static arrays with these. */
#define RBP_MAX_TASKS 8
#define RBP_MAX_SEMS 24
#define RBP_MAX_QUEUES 2
#define RBP_MAX_MUTEXES 2

/* Every task stack, harness tasks and the kernel's idle task alike: 512
 * words, or less where the board's RAM is small (RB_BOARD_STACK_WORDS). */
#define RB_STACK_WORDS RB_CFG_STACK_WORDS

/* Capability flags (struct rbp_ops.caps). */
#define RBP_HAS_TASKS (1u << 0)        /* init, task_create, start, delay, critical_*, sem_* */
#define RBP_HAS_PREEMPTION (1u << 1)   /* a ready higher-priority task runs at once */
#define RBP_HAS_SEM_FROM_ISR (1u << 2) /* sem_give_from_isr, isr_enter, isr_exit */
#define RBP_HAS_QUEUE (1u << 3)        /* queue_* */
#define RBP_HAS_MUTEX (1u << 4)        /* mutex_* */
#define RBP_HAS_MUTEX_PI (1u << 5)     /* mutex_lock raises the owner to the waiter's priority */
#define RBP_HAS_TIME_SLICE (1u << 6)   /* equal-priority ready tasks rotate every tick */
#define RBP_HAS_TICK_HOOK (1u << 7)    /* the port calls rb_tick_hook() on every tick */
#define RBP_HAS_IDLE_HOOK (1u << 8)    /* the port calls rb_idle_hook() from its idle loop */
#define RBP_HAS_HEAP (1u << 10) /* heap_alloc, heap_free, heap_stats: the kernel's allocator */

/* The arena every port gives its kernel's general-purpose allocator (a static
 * array handed to the kernel where it takes one, else its heap-size setting),
 * so the heap test's figures compare. */
#define RB_HEAP_BYTES RB_CFG_HEAP_BYTES /* 16384, or the board's RB_BOARD_HEAP_BYTES */

/* heap_stats: the allocator's own figures, in bytes. */
#define RBP_HEAP_UNKNOWN 0xFFFFFFFFu
struct rbp_heap_stats {
  uint32_t arena_bytes;  /* what the allocator manages (RB_HEAP_BYTES, or more where the kernel's
                            own objects share its heap: docs/kernels.md) */
  uint32_t free_bytes;   /* free as the allocator counts it (headers of free blocks included or
                            not, per kernel: docs/kernels.md) */
  uint32_t largest_free; /* the largest free block, or the largest request that succeeds
                            (which one: docs/kernels.md); RBP_HEAP_UNKNOWN if neither */
};
/* For a port whose allocator has no call for its largest free block: the
 * largest request `alloc` serves, at most `limit` bytes, by bisection. Each
 * block it gets is given back at once with `release`, so a first-fit heap
 * ends as it began; called from heap_stats, outside any window
 * (harness/heap_probe.c). */
uint32_t rbp_largest_request(uint32_t limit, void* (*alloc)(uint32_t bytes),
                             void (*release)(void* block));
#define RBP_HAS_NOTIFY (1u << 9) /* notify_give, notify_take, notify_give_from_isr */
/* The kernel's critical section leaves interrupt level zero_latency_prio
 * unmasked (BASEPRI-based kernels; never with PRIMASK): zero_latency_irq. */
#define RBP_HAS_ZERO_LATENCY_IRQ (1u << 11)

typedef void (*rbp_entry_fn)(void* arg);

struct rbp_ops {
  /* CONFIG kernel=: the kernel's name ("bare", "freertos", ...). */
  const char* kernel;
  /* RBP_HAS_* flags of this port in this build. */
  uint32_t caps;

  /* Called once from main() before any other operation, with interrupts
   * enabled and the board initialised. */
  int (*init)(void);
  /* Creates task `id` running entry(arg) at neutral priority `prio` on the
   * harness-provided stack (stack_words 32-bit words, 8-byte aligned). Called
   * before start() only. */
  int (*task_create)(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                     uint32_t* stack, uint32_t stack_words);
  /* Starts the tick (RB_CFG_TICK_HZ from the core clock RB_CORE_HZ, interrupt
   * priority RB_TICK_PRIO) and the scheduler; never returns. */
  void (*start)(void);

  /* Binary semaphore: created empty; give on a full one leaves it full and
   * succeeds; take waits forever. */
  int (*sem_create)(int id);
  int (*sem_give)(int id);
  int (*sem_take)(int id);
  /* From the test-timer ISR, between isr_enter and isr_exit: give and request
   * the switch on interrupt exit the kernel's own way (e.g. FreeRTOS:
   * xSemaphoreGiveFromISR + portYIELD_FROM_ISR). */
  int (*sem_give_from_isr)(int id);
  /* Kernel bookkeeping at ISR entry and exit (RT-Thread rt_interrupt_enter/
   * leave, uC/OS-III OSIntEnter/OSIntExit); a no-op function where the
   * kernel needs none. Never NULL when RBP_HAS_SEM_FROM_ISR is set. */
  void (*isr_enter)(void);
  void (*isr_exit)(void);

  /* Queue of one uint32_t slot: send waits while full, receive while empty. */
  int (*queue_create)(int id);
  int (*queue_send)(int id, uint32_t msg);
  int (*queue_receive)(int id, uint32_t* msg);

  /* Mutex (non-recursive; unlocked by its owner). */
  int (*mutex_create)(int id);
  int (*mutex_lock)(int id);
  int (*mutex_unlock)(int id);

  /* Gives up the processor to a ready task of the same priority. */
  void (*yield)(void);
  /* Kernel critical section: masks at least the test timer (RB_IRQ_PRIO) and
   * the tick; nests through the returned state. */
  uint32_t (*critical_enter)(void);
  void (*critical_exit)(uint32_t state);
  /* Blocks the calling task for `ticks` kernel ticks (>= 1). */
  void (*delay)(uint32_t ticks);
  /* Kernel tick count since start. */
  uint32_t (*tick_count)(void);

  /* CONFIG checks=: the kernel's API argument checks and asserts as this
   * build compiled them, read from the kernel's own configuration macros
   * (which follow RB_CFG_CHECKS): "off", "on", "partial" (off asked for, but
   * the kernel keeps checks it cannot compile out) or "none" (no kernel:
   * the template).
   * CONFIG lookup=: how the scheduler finds the highest ready priority:
   * "clz" (the CPU's count-leading-zeros) or "generic" (a table or loop).
   * docs/kernels.md gives each kernel's values, item by item. */
  const char* checks;
  const char* lookup;

  /* ---- RBP_HAS_HEAP: the kernel's general-purpose allocator (test heap) ----
   * heap_alloc: `bytes` (1..256 from the harness) from the kernel's own
   *   allocator on its RB_HEAP_BYTES arena, without waiting; NULL when it
   *   cannot (the harness counts that, it is not an error). The harness checks
   *   8-byte alignment: a port asks its allocator for that where it has the
   *   choice.
   * heap_free: gives back a block heap_alloc returned; RBP_OK or negative.
   * heap_stats: fills *s from the allocator's own accounting (a walk of its
   *   free list or a probe where it has no such call, outside any window);
   *   RBP_OK or negative. */
  void* (*heap_alloc)(uint32_t bytes);
  int (*heap_free)(void* block);
  int (*heap_stats)(struct rbp_heap_stats* s);
  /* Direct task notification (RBP_HAS_NOTIFY): the kernel's own signal to
   * one task, kept in the task itself (no separate kernel object), where the
   * kernel's public API has one (FreeRTOS task notifications, uC/OS-III task
   * semaphores, ChibiOS event flags, CMSIS-RTOS2 thread flags). Tasks are
   * named by their harness IDs (task_create's `id`); the port maps them to
   * its task handles. The notification is latched: a give before the take is
   * kept, and the take then returns at once. Binary or counting as the
   * kernel's own call is (the port's header says which): a valid harness run
   * never gives twice without a take in between (notify counts any such
   * event bad), so both behave the same on every measured path.
   * notify_give: from a task, notifies task `task_id` (a waiting task of
   *   higher priority runs at once, inside the call).
   * notify_take: the calling task, whose ID is `self_id`, waits forever for
   *   its own notification and consumes it.
   * notify_give_from_isr: from the test-timer ISR, between isr_enter and
   *   isr_exit: notifies task `task_id` and requests the switch on interrupt
   *   exit the kernel's own way (e.g. FreeRTOS: vTaskNotifyGiveFromISR +
   *   portYIELD_FROM_ISR). */
  int (*notify_give)(int task_id);
  int (*notify_take)(int self_id);
  int (*notify_give_from_isr)(int task_id);
  /* zero_latency_irq (with RBP_HAS_ZERO_LATENCY_IRQ): an NVIC level (0 the
   * most urgent, RB_NVIC_PRIO_BITS implemented bits, like RB_IRQ_PRIO) that
   * the kernel's critical section (critical_enter) never masks and that none
   * of the kernel's own exceptions uses, e.g. FreeRTOS: one level above
   * configMAX_SYSCALL_INTERRUPT_PRIORITY. An ISR at this level must not call
   * the kernel. The harness checks the claim (CHECK zli_unmasked). */
  int zero_latency_prio;
};

/* The port's table, defined by the port. */
extern const struct rbp_ops rbp_port;

/* Hooks provided by the harness and called by the port. Both are short and
 * may run with interrupts masked.
 * rb_tick_hook: from the kernel's tick interrupt, once per tick (its cost is
 *   inside tick_overhead, equally for every kernel).
 * rb_idle_hook: from every pass of the idle task's loop. The idle loop must
 *   busy-wait, not sleep (WFI stops the DWT cycle counter on hardware and
 *   makes QEMU's -icount timing depend on the wake source); the harness uses
 *   the hook to know when every task is blocked. Only during test sleep_wake
 *   does the hook itself sleep (WFI, or the board's STOP mode) before it
 *   returns, as an application's idle hook would. */
void rb_tick_hook(void);
void rb_idle_hook(void);

/* Stacks (END stack_min_free_words, the stack margin verdict of verify). The
 * harness fills every task stack with a pattern and counts the untouched
 * words from the bottom. A port defines these only where its kernel differs:
 * rbp_stack_reserved_words: words at the bottom of each harness stack that
 *   the kernel itself writes at task creation (NuttX's TLS block, RTX's
 *   guard word), skipped by the count; default 0.
 * rbp_stack_unseen: the reason the harness stacks are not the tasks' stacks
 *   (LiteOS-M 1.1 allocates every stack from its pool); END then reports
 *   stack_min_free_words=n/a instead of a number; default NULL. */
extern const uint32_t rbp_stack_reserved_words;
extern const char* const rbp_stack_unseen;

/* For ports: reports an unrecoverable port error as a `!! port error` line
 * and stops the firmware. */
void rb_fatal(const char* what) __attribute__((noreturn));

#endif
