/* rtosbench port for ChibiOS/RT 21.6.0 (RT kernel 7.0.0, ARMv7-M port or on
 * a Cortex-M33 the ARMv8-M-ML port, run Secure-only; advanced kernel mode;
 * no ChibiOS/HAL: the boards own the UART and timers).
 *
 *   threads     chThdCreateStatic on the harness' stacks (the working area:
 *               ChibiOS keeps the thread_t at its top, see task_create)
 *   semaphores  chSemObjectInit (count 0) / chSemSignal / chSemWait.
 *               ChibiOS semaphores are counting (the binary ones of OSLIB,
 *               chBSem*, are a wrapper that caps the count at 1). A valid
 *               harness run never gives a semaphore twice without a take in
 *               between (irq_latency counts any such event bad), so counting
 *               and binary behave the same on every measured path.
 *   from ISR    isr_enter = CH_IRQ_PROLOGUE, chSysLockFromISR +
 *               chSemSignalI + chSysUnlockFromISR, isr_exit = CH_IRQ_EPILOGUE:
 *               the epilogue (__port_irq_epilogue) makes the interrupt return
 *               into __port_switch_from_isr when a switch is due, ChibiOS'
 *               switch on interrupt exit
 *   queue       an OSLIB mailbox of one msg_t (chMBObjectInit /
 *               chMBPostTimeout / chMBFetchTimeout, TIME_INFINITE)
 *   mutex       chMtxObjectInit / chMtxLock / chMtxUnlock (priority
 *               inheritance is inherent to ChibiOS mutexes)
 *   yield       chThdYield
 *   critical    chSysGetStatusAndLockX / chSysRestoreStatusX (BASEPRI at the
 *               kernel level; nesting through the returned status)
 *   notify      the thread's own event flags (CH_CFG_USE_EVENTS): chEvtSignal
 *               (thread, event 0) / chEvtWaitAny(EVENT_MASK(0)); from the
 *               ISR chEvtSignalI inside chSysLockFromISR/chSysUnlockFromISR,
 *               the switch on exit as for the semaphore. Binary: the flag is
 *               set or not. Not chThdSuspendS/chThdResume: a resume before
 *               the suspend is lost, a notification must be kept
 *   delay       chThdSleep; tick count chVTGetSystemTimeX (one unit a tick)
 *   tick        the SysTick handler below runs chSysTimerHandlerI (periodic
 *               tick, CH_CFG_ST_TIMEDELTA 0), whose CH_CFG_SYSTEM_TICK_HOOK
 *               calls rb_tick_hook; idle: CH_CFG_IDLE_LOOP_HOOK (chconf.h)
 */
#include "ch.h"
#include "cm4_regs.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"

/* The kernel lock (BASEPRI at CORTEX_MAX_KERNEL_PRIORITY) must mask the test
 * timer and the tick, which both call the kernel. */
#if RB_IRQ_PRIO < CORTEX_MAX_KERNEL_PRIORITY || RB_TICK_PRIO < CORTEX_MAX_KERNEL_PRIORITY
#error \
    "the test timer and the tick must be at or below CORTEX_MAX_KERNEL_PRIORITY to call the kernel"
#endif
#if CORTEX_PRIORITY_BITS != 4
#error "the port is configured for 4 NVIC priority bits (STM32F4, the Cortex-M33 boards)"
#endif

/* Neutral 1..8 -> NORMALPRIO + 1..8 (129..136; larger is more urgent in
 * ChibiOS). The idle thread is IDLEPRIO (1); the main thread, which creates
 * everything, waits at HIGHPRIO (255) before the start. */
#define RB_CH_PRIO(p) ((tprio_t)(NORMALPRIO + (p)))

static semaphore_t rb_ch_sem[RBP_MAX_SEMS];
static mailbox_t rb_ch_mbox[RBP_MAX_QUEUES];
static msg_t rb_ch_mbox_buf[RBP_MAX_QUEUES][1];
static mutex_t rb_ch_mutex[RBP_MAX_MUTEXES];
static thread_t* rb_ch_thread[RBP_MAX_TASKS];

/* The exception stack. ChibiOS runs threads on the process stack (PSP) and
 * interrupts on the main stack (MSP), as its startup code sets them up
 * (crt0_v7m.S: CONTROL.SPSEL); its interrupt epilogue builds the
 * switch-on-exit frame on the PSP. The boards' startup runs main() on the
 * MSP, so init moves main() (ChibiOS' main thread) to the PSP where it is and
 * gives the MSP this array: 1 KB, the __main_stack_size__ of ChibiOS' own
 * makefiles. */
#define RB_CH_IRQ_STACK_WORDS 256
static uint32_t rb_ch_irq_stack[RB_CH_IRQ_STACK_WORDS] __attribute__((aligned(8)));

/* The system tick, as ChibiOS/HAL's SysTick driver writes it
 * (os/hal/ports/common/ARMCMx/systick: st_lld_serve_interrupt). */
void SysTick_Handler(void) {
  CH_IRQ_PROLOGUE();
  chSysLockFromISR();
  chSysTimerHandlerI(); /* CH_CFG_SYSTEM_TICK_HOOK: rb_tick_hook() */
  chSysUnlockFromISR();
  CH_IRQ_EPILOGUE();
}

/* ---- Port operations ---------------------------------------------------- */

/* The heap test's heap (RBP_HAS_HEAP) over a static RB_HEAP_BYTES arena. */
static memory_heap_t rb_ch_heap;
static uint64_t rb_ch_arena[RB_HEAP_BYTES / sizeof(uint64_t)];

static int rb_ch_init(void) {
  /* Thread mode on the PSP (at the current stack pointer, so main()'s frames
   * stay where they are), the MSP on its own stack; with FP, CONTROL.FPCA
   * too, as ChibiOS' crt0 does (every thread context then has an FP frame;
   * FPCCR keeps its reset value, ASPEN | LSPEN, crt0's too). Interrupts are
   * off while both stack pointers hold the same value. */
  __disable_irq();
  __set_PSP(__get_MSP());
#if CORTEX_USE_FPU
  __set_CONTROL(__get_CONTROL() | 0x6u); /* SPSEL | FPCA */
#else
  __set_CONTROL(__get_CONTROL() | 0x2u); /* SPSEL */
#endif
  __ISB();
  __set_MSP((uint32_t)(uintptr_t)&rb_ch_irq_stack[RB_CH_IRQ_STACK_WORDS]);
  __enable_irq();

  /* main() becomes the main thread (NORMALPRIO), the idle thread is created;
   * returns with interrupts enabled. */
  chSysInit();
  /* Above every harness task until the start: chThdCreateStatic starts a
   * thread at once, and no task may run before start. */
  (void)chThdSetPriority(HIGHPRIO);
  chHeapObjectInit(&rb_ch_heap, rb_ch_arena, sizeof rb_ch_arena);
  return RBP_OK;
}

static int rb_ch_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                             uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  /* The harness' stack is the thread's working area: ChibiOS 21.6 places the
   * thread_t at its top (no API takes it separately), the stack grows down
   * from below it. */
  (void)name;
#if defined(PORT_ARCHITECTURE_ARM_V8M_MAINLINE)
  /* ARMv8-M-ML wants working areas aligned to 32 bytes, their size a
   * multiple of 32 (PORT_WORKING_AREA_ALIGN, PORT_STACK_ALIGN;
   * chThdCreateStatic checks both when CONFIG checks=on); the harness
   * aligns its stacks to 8. The working area is the stack's 32-byte aligned
   * part: at most 6 words at either end stay unused (still holding the
   * harness' fill pattern, so counted as free stack). */
  uintptr_t wa_lo = ((uintptr_t)stack + PORT_WORKING_AREA_ALIGN - 1u) &
                    ~(uintptr_t)(PORT_WORKING_AREA_ALIGN - 1u);
  uintptr_t wa_hi = (uintptr_t)(stack + stack_words) & ~(uintptr_t)(PORT_STACK_ALIGN - 1u);
  thread_t* tp =
      chThdCreateStatic((void*)wa_lo, (size_t)(wa_hi - wa_lo), RB_CH_PRIO(prio), entry, arg);
#else
  thread_t* tp =
      chThdCreateStatic(stack, stack_words * sizeof(uint32_t), RB_CH_PRIO(prio), entry, arg);
#endif
  rb_ch_thread[id] = tp;
  return tp != NULL ? RBP_OK : RBP_ERR;
}

static void rb_ch_start(void) {
  /* The tick: SysTick and PendSV at RB_TICK_PRIO. chSysInit (port_init) set
   * SVCall to 1 and PendSV to CORTEX_PRIORITY_PENDSV (2); the advanced kernel
   * mode never pends PendSV (the switch on interrupt exit returns through
   * SVC), so PendSV's priority changes nothing and is set like every port's. */
  rb_cm_tick_prio_set();
  rb_cm_systick_start(RB_CORE_HZ / RB_CFG_TICK_HZ);
  /* The main thread's work is done: it sleeps for ever and the highest
   * harness task runs. */
  for (;;) {
    chThdSleep(TIME_INFINITE);
  }
}

static int rb_ch_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  chSemObjectInit(&rb_ch_sem[id], 0);
  return RBP_OK;
}

static int rb_ch_sem_give(int id) {
  chSemSignal(&rb_ch_sem[id]);
  return RBP_OK;
}

static int rb_ch_sem_take(int id) {
  return chSemWait(&rb_ch_sem[id]) == MSG_OK ? RBP_OK : RBP_ERR;
}

static void rb_ch_isr_enter(void) {
  CH_IRQ_PROLOGUE();
}

static int rb_ch_sem_give_from_isr(int id) {
  chSysLockFromISR();
  chSemSignalI(&rb_ch_sem[id]);
  chSysUnlockFromISR();
  return RBP_OK;
}

static void rb_ch_isr_exit(void) {
  CH_IRQ_EPILOGUE();
}

static int rb_ch_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  chMBObjectInit(&rb_ch_mbox[id], rb_ch_mbox_buf[id], 1);
  return RBP_OK;
}

static int rb_ch_queue_send(int id, uint32_t msg) {
  return chMBPostTimeout(&rb_ch_mbox[id], (msg_t)msg, TIME_INFINITE) == MSG_OK ? RBP_OK : RBP_ERR;
}

static int rb_ch_queue_receive(int id, uint32_t* msg) {
  msg_t m;
  if (chMBFetchTimeout(&rb_ch_mbox[id], &m, TIME_INFINITE) != MSG_OK) {
    return RBP_ERR;
  }
  *msg = (uint32_t)m;
  return RBP_OK;
}

static int rb_ch_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  chMtxObjectInit(&rb_ch_mutex[id]);
  return RBP_OK;
}

static int rb_ch_mutex_lock(int id) {
  chMtxLock(&rb_ch_mutex[id]);
  return RBP_OK;
}

static int rb_ch_mutex_unlock(int id) {
  chMtxUnlock(&rb_ch_mutex[id]);
  return RBP_OK;
}

static void rb_ch_yield(void) {
  chThdYield();
}

static uint32_t rb_ch_critical_enter(void) {
  return (uint32_t)chSysGetStatusAndLockX();
}

static void rb_ch_critical_exit(uint32_t state) {
  chSysRestoreStatusX((syssts_t)state);
}

static void rb_ch_delay(uint32_t ticks) {
  chThdSleep((sysinterval_t)ticks);
}

static uint32_t rb_ch_tick_count(void) {
  return (uint32_t)chVTGetSystemTimeX();
}

#define RB_CH_NOTIFY_EVENT EVENT_MASK(0)

static int rb_ch_notify_give(int task_id) {
  chEvtSignal(rb_ch_thread[task_id], RB_CH_NOTIFY_EVENT);
  return RBP_OK;
}

static int rb_ch_notify_take(int self_id) {
  (void)self_id; /* the calling thread's own flags */
  return chEvtWaitAny(RB_CH_NOTIFY_EVENT) == RB_CH_NOTIFY_EVENT ? RBP_OK : RBP_ERR;
}

static int rb_ch_notify_give_from_isr(int task_id) {
  chSysLockFromISR();
  chEvtSignalI(rb_ch_thread[task_id], RB_CH_NOTIFY_EVENT);
  chSysUnlockFromISR();
  return RBP_OK;
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (chconf.h follows RB_CFG_CHECKS). */
#if CH_DBG_ENABLE_CHECKS && CH_DBG_ENABLE_ASSERTS && CH_DBG_SYSTEM_STATE_CHECK
#define RB_PORT_CHECKS "on"
#elif !CH_DBG_ENABLE_CHECKS && !CH_DBG_ENABLE_ASSERTS && !CH_DBG_SYSTEM_STATE_CHECK
#define RB_PORT_CHECKS "off"
#else
#define RB_PORT_CHECKS "partial"
#endif
/* ChibiOS/RT has no ready bitmap to search: its ready list is a queue kept
 * in priority order (os/rt/include/chlists.h: ch_pqueue_insert_behind walks
 * it on every insertion, the head is the highest ready thread). No CLZ. */
#define RB_PORT_LOOKUP "generic"

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* ---- Heap (RBP_HAS_HEAP): chHeapAllocAligned / chHeapFree on rb_ch_heap --
 * ChibiOS' heap: a first-fit free list in 8-byte units (CH_HEAP_ALIGNMENT),
 * adjacent free blocks merged on free, under the heap's mutex. Alignment 8
 * asked for explicitly. chHeapStatus walks the free list: free bytes and the
 * largest free block, both without the blocks' 8-byte headers. */
static void* rb_ch_heap_alloc(uint32_t bytes) {
  return chHeapAllocAligned(&rb_ch_heap, (size_t)bytes, 8u);
}

static int rb_ch_heap_free(void* block) {
  chHeapFree(block);
  return RBP_OK;
}

static int rb_ch_heap_stats(struct rbp_heap_stats* s) {
  size_t total = 0, largest = 0;
  (void)chHeapStatus(&rb_ch_heap, &total, &largest);
  s->arena_bytes = (uint32_t)sizeof rb_ch_arena;
  s->free_bytes = (uint32_t)total;
  s->largest_free = (uint32_t)largest;
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "chibios",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK
#if CH_CFG_TIME_QUANTUM > 0
            | RBP_HAS_TIME_SLICE
#endif
            | RBP_HAS_HEAP | RBP_HAS_NOTIFY | RBP_HAS_ZERO_LATENCY_IRQ,
    .init = rb_ch_init,
    .task_create = rb_ch_task_create,
    .start = rb_ch_start,
    .sem_create = rb_ch_sem_create,
    .sem_give = rb_ch_sem_give,
    .sem_take = rb_ch_sem_take,
    .sem_give_from_isr = rb_ch_sem_give_from_isr,
    .isr_enter = rb_ch_isr_enter,
    .isr_exit = rb_ch_isr_exit,
    .queue_create = rb_ch_queue_create,
    .queue_send = rb_ch_queue_send,
    .queue_receive = rb_ch_queue_receive,
    .mutex_create = rb_ch_mutex_create,
    .mutex_lock = rb_ch_mutex_lock,
    .mutex_unlock = rb_ch_mutex_unlock,
    .yield = rb_ch_yield,
    .critical_enter = rb_ch_critical_enter,
    .critical_exit = rb_ch_critical_exit,
    .delay = rb_ch_delay,
    .tick_count = rb_ch_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_ch_heap_alloc,
    .heap_free = rb_ch_heap_free,
    .heap_stats = rb_ch_heap_stats,
    /* Direct task notification: event flags. */
    .notify_give = rb_ch_notify_give,
    .notify_take = rb_ch_notify_take,
    .notify_give_from_isr = rb_ch_notify_give_from_isr,

    /* zero_latency_irq: port_lock sets BASEPRI to CORTEX_BASEPRI_KERNEL
     * (level CORTEX_MAX_KERNEL_PRIORITY, 2 here); levels above it are
     * ChibiOS' fast interrupts. SVCall takes level 1, so the fast level used
     * is CORTEX_MAXIMUM_PRIORITY (0). */
    .zero_latency_prio = CORTEX_MAXIMUM_PRIORITY,
};
