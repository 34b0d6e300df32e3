/* rtosbench port for uC/OS-III 3.08.00 (Ports/ARM-Cortex-M/ARMv7-M/GNU with
 * uC-CPU 1.32.01 and uC-LIB 1.39.01, as shipped).
 *
 *   semaphores  OSSemCreate (count 0) / OSSemPost(OS_OPT_POST_1) / OSSemPend.
 *               uC/OS-III semaphores are counting; it has no binary form. A
 *               valid harness run never gives a semaphore twice without a
 *               take in between (irq_latency counts any such event bad), so
 *               counting and binary behave the same on every measured path.
 *   from ISR    isr_enter = OSIntEnter (inside CPU_CRITICAL_ENTER, as the
 *               kernel's own SysTick handler does it), OSSemPost, isr_exit =
 *               OSIntExit, which pends PendSV for the switch on exit
 *   queue       OSQCreate (1 entry); the uint32 travels as the message
 *               pointer (size 4). OSQPost never blocks: on OS_ERR_Q_MAX the
 *               port waits a tick and retries (never reached by the harness,
 *               whose receiver has the higher priority)
 *   mutex       OSMutexCreate / OSMutexPend / OSMutexPost (inheritance built in)
 *   yield       OSSchedRoundRobinYield (none in a tickless build, below)
 *   critical    CPU_CRITICAL_ENTER / CPU_CRITICAL_EXIT (BASEPRI at the
 *               kernel-aware boundary, 4: masks priorities 4..15)
 *   slicing     OSSchedRoundRobinCfg(enabled, 1 tick); every task's quantum 1
 *               (round robin left disabled, the kernel's default, when
 *               RB_TIME_SLICING is 0)
 *   notify      the task's built-in semaphore: OSTaskSemPost(tcb,
 *               OS_OPT_POST_NONE) / OSTaskSemPend(0, OS_OPT_PEND_BLOCKING);
 *               from the ISR the same post between OSIntEnter and OSIntExit.
 *               Counting, like OSSem (see semaphores above)
 *   hooks       OS_AppIdleTaskHookPtr / OS_AppTimeTickHookPtr (the kernel's
 *               application hooks, OS_CFG_APP_HOOKS_EN)
 *
 * The kernel's SysTick (periodic build) and PendSV handlers are used as
 * shipped under the vector table's names (port.cmake renames them at compile
 * time); OS_CPU_SysTickInit programs SysTick at the kernel-aware boundary
 * priority, so start() moves it to RB_TICK_PRIO, the same for every kernel.
 *
 * Tickless build (RB_CFG_TICKLESS): the kernel's dynamic tick
 * (OS_CFG_DYN_TICK_EN, os_cfg.h). The kernel keeps its tick list as always
 * and, whenever its head changes, asks for the next interrupt in whole ticks
 * through OS_DynTickSet, below, on SysTick; the port's SysTick handler hands
 * the ticks of the period that ended to OSTimeDynTick (which calls the tick
 * hook once per interrupt), and the idle hook sleeps in WFI after
 * rb_idle_hook(). uC/OS-III 3.08 compiles no round robin with the dynamic
 * tick (os.h #error), so that build has neither time slicing nor a yield
 * (yield NULL: the harness reports it NA). */
#include "cm4_regs.h"
#include "os.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"

/* Neutral 1..8 -> uC/OS-III 10 - p = 9..2 (0 is the most urgent). The timer
 * task keeps its default priority (OS_CFG_PRIO_MAX - 3 = 61), idle is 63. */
#define RB_OS_PRIO(p) ((OS_PRIO)(10 - (p)))

static OS_TCB rb_os_tcb[RBP_MAX_TASKS];
static OS_SEM rb_os_sem[RBP_MAX_SEMS];
static OS_Q rb_os_queue[RBP_MAX_QUEUES];
static OS_MUTEX rb_os_mutex[RBP_MAX_MUTEXES];

static int rb_os_ok(OS_ERR err) {
  return err == OS_ERR_NONE ? RBP_OK : RBP_ERR;
}

#if RB_CFG_TICKLESS
/* ---- Dynamic tick on SysTick (tickless build) ------------------------------
 * The kernel's contract (os_tick.c, os_time.c, os_core.c, os_tmr.c), both
 * called with kernel-aware interrupts masked (BASEPRI, which masks SysTick):
 *   OS_DynTickSet(n)  the kernel has brought OSTickCtr up to now's whole
 *                     ticks (the new base) and wants its next interrupt n
 *                     ticks after it, 0 meaning no timeout pending. Returns
 *                     the ticks actually programmed (fewer when n does not
 *                     fit), the count the interrupt then stands for.
 *   OS_DynTickGet()   the whole ticks gone by since the base, 0 to that
 *                     count inclusive: the current time is OSTickCtr + it.
 *   OSTimeDynTick(k)  from the timer's ISR: k ticks have passed; the kernel
 *                     adds them to OSTickCtr, wakes the tasks due and calls
 *                     OS_DynTickSet for the next head of its tick list.
 * SysTick counts down RB_DT_PERIOD core clocks per tick in 24 bits, so a
 * period is at most RB_DT_MAX_TICKS whole ticks (99 at 1000 Hz); an idle
 * kernel is woken that often. Each OS_DynTickSet restarts SysTick for the
 * counts left to the wanted tick boundary, so the part of a tick gone by
 * since the base is kept (rb_dt_lead), not dropped; the few clocks between
 * the counter's read and its restart are not counted. */
#define RB_DT_PERIOD (RB_CORE_HZ / RB_CFG_TICK_HZ)
#define RB_DT_MAX_TICKS ((OS_TICK)(0x1000000u / RB_DT_PERIOD))
/* A deadline already past is programmed this many clocks ahead. */
#define RB_DT_MIN_COUNTS 64u
#define SYST_CSR_COUNTFLAG (1u << 16)
#define SCB_ICSR_PENDSTCLR (1u << 25)
_Static_assert(RB_DT_PERIOD >= 2u * RB_DT_MIN_COUNTS && RB_DT_PERIOD <= 0x1000000u,
               "a tick must fit SysTick's 24 bits");

static OS_TICK rb_dt_base;     /* OSTickCtr at the base */
static OS_TICK rb_dt_delta;    /* ticks from the base to the period's end */
static uint32_t rb_dt_lead;    /* clocks from the base to SysTick's restart */
static uint32_t rb_dt_load;    /* clocks of the period (SYST_RVR + 1) */
static uint32_t rb_dt_expired; /* the period has ended (COUNTFLAG, kept: a
                                  read of SYST_CSR clears it) */

/* Clocks since the base. A period that has ended but not been handed to the
 * kernel counts whole (the counter has reloaded and goes on). SYST_CVR reads
 * 0 both right after a restart (until the next clock reloads it) and at the
 * period's end; COUNTFLAG, set at the end only, tells the two apart. */
static uint32_t rb_dt_since_base(void) {
  const uint32_t early = SYST_CSR & SYST_CSR_COUNTFLAG;
  uint32_t val = SYST_CVR;
  const uint32_t late = SYST_CSR & SYST_CSR_COUNTFLAG;
  if (late != 0u) {
    val = SYST_CVR; /* it ended between the reads: the count after */
  }
  rb_dt_expired |= early | late;
  const uint32_t in_period = val == 0u ? 0u : rb_dt_load - val;
  return rb_dt_lead + (rb_dt_expired != 0u ? rb_dt_load : 0u) + in_period;
}

OS_TICK OS_DynTickGet(void) {
  const uint32_t ticks = rb_dt_since_base() / RB_DT_PERIOD;
  return ticks < rb_dt_delta ? (OS_TICK)ticks : rb_dt_delta;
}

OS_TICK OS_DynTickSet(OS_TICK ticks) {
  const uint32_t past = rb_dt_since_base();
  const OS_TICK advanced = OSTickCtr - rb_dt_base;
  uint32_t lead = 0u;
  if (advanced <= rb_dt_delta && past > advanced * RB_DT_PERIOD) {
    lead = past - advanced * RB_DT_PERIOD;
  }
  rb_dt_base = OSTickCtr;
  const OS_TICK n = (ticks == 0u || ticks > RB_DT_MAX_TICKS) ? RB_DT_MAX_TICKS : ticks;
  const uint32_t end = n * RB_DT_PERIOD;
  const uint32_t load = end >= lead + RB_DT_MIN_COUNTS ? end - lead : RB_DT_MIN_COUNTS;
  SYST_RVR = load - 1u;
  SYST_CVR = 0u;                 /* restart: reloads at the next clock, clears COUNTFLAG */
  SCB_ICSR = SCB_ICSR_PENDSTCLR; /* a period that ended here is the kernel's already */
  rb_dt_expired = 0u;
  rb_dt_lead = lead;
  rb_dt_load = load;
  rb_dt_delta = n;
  return n;
}

/* The port's own SysTick handler, in the tickless build only: the kernel's
 * OS_CPU_SysTickHandler calls OSTimeTick(), one tick per interrupt, and this
 * interrupt stands for rb_dt_delta ticks (port.cmake leaves the kernel's
 * handler under its own name). Like the kernel's, it brackets the work with
 * OSIntEnter/OSIntExit; OSTimeDynTick runs inside the critical section, so
 * no other interrupt can take the same period through OS_DynTickGet between
 * the check and the kernel's update (the tick hook then runs masked, which
 * rb_port.h allows). A period some other caller already handed over (an
 * interrupt in between reprogrammed SysTick) leaves nothing to do. */
void SysTick_Handler(void) {
  CPU_SR_ALLOC();
  CPU_CRITICAL_ENTER();
  OSIntEnter();
  (void)rb_dt_since_base(); /* reads COUNTFLAG into rb_dt_expired */
  if (rb_dt_expired != 0u) {
    OSTimeDynTick(rb_dt_delta);
  }
  CPU_CRITICAL_EXIT();
  OSIntExit();
}

/* Starts SysTick for the longest period, the kernel's tick list being empty. */
static void rb_dt_start(void) {
  CPU_SR_ALLOC();
  CPU_CRITICAL_ENTER();
  SYST_CSR = 0u;
  SYST_CVR = 0u;
  rb_dt_base = OSTickCtr;
  rb_dt_delta = 0u;
  rb_dt_lead = 0u;
  rb_dt_load = 1u;
  rb_dt_expired = 0u;
  (void)OS_DynTickSet(0u);
  SYST_CSR = SYST_CSR_CLKSOURCE | SYST_CSR_TICKINT | SYST_CSR_ENABLE;
  CPU_CRITICAL_EXIT();
}

/* The idle hook of the tickless build: the harness' hook, then sleep until
 * an interrupt (the dynamic tick's SysTick or the harness' event timer). An
 * interrupt that readies a task switches away before the WFI is reached. */
static void rb_os_idle(void) {
  rb_idle_hook();
  __asm volatile("dsb\n\twfi\n\tisb" ::: "memory");
}
#endif

/* ---- Port operations ---------------------------------------------------- */

static int rb_os_init(void) {
  OS_ERR err;
  CPU_Init();
  OSInit(&err);
  if (err != OS_ERR_NONE) {
    return RBP_ERR;
  }
#if RB_CFG_TICKLESS
  OS_AppIdleTaskHookPtr = rb_os_idle;
#else
  OS_AppIdleTaskHookPtr = rb_idle_hook;
#endif
  OS_AppTimeTickHookPtr = rb_tick_hook;
#if OS_CFG_SCHED_ROUND_ROBIN_EN > 0u
  OSSchedRoundRobinCfg(RB_TIME_SLICING ? DEF_ENABLED : DEF_DISABLED, 1u, &err);
#endif
  return rb_os_ok(err);
}

static int rb_os_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                             uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  OS_ERR err;
  /* Stack limit 10% (the kernel's OS_CFG_TASK_STK_LIMIT_PCT_EMPTY), no task
   * queue, a 1-tick round-robin quantum, OS_OPT_TASK_NONE: no stack
   * clearing, which would erase the harness' high-water pattern. */
  OSTaskCreate(&rb_os_tcb[id], (CPU_CHAR*)name, entry, arg, RB_OS_PRIO(prio), (CPU_STK*)stack,
               (CPU_STK_SIZE)(stack_words / 10u), (CPU_STK_SIZE)stack_words, 0u, 1u, 0,
               OS_OPT_TASK_NONE, &err);
  return rb_os_ok(err);
}

static void rb_os_start(void) {
  OS_ERR err;
#if !RB_CFG_TICKLESS
  OS_CPU_SysTickInit(RB_CORE_HZ / RB_CFG_TICK_HZ);
#endif
  SCB_SHPR3 = (SCB_SHPR3 & 0x00FFFFFFu) | ((uint32_t)RB_PRIO_BYTE(RB_TICK_PRIO) << 24);
#if RB_CFG_TICKLESS
  rb_dt_start(); /* at RB_TICK_PRIO already */
#endif
  OSStart(&err); /* sets PendSV to the lowest priority (0xFF), never returns */
}

static int rb_os_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  OS_ERR err;
  OSSemCreate(&rb_os_sem[id], "rb", 0u, &err);
  return rb_os_ok(err);
}

static int rb_os_sem_give(int id) {
  OS_ERR err;
  (void)OSSemPost(&rb_os_sem[id], OS_OPT_POST_1, &err);
  return rb_os_ok(err);
}

static int rb_os_sem_take(int id) {
  OS_ERR err;
  CPU_TS ts;
  (void)OSSemPend(&rb_os_sem[id], 0u, OS_OPT_PEND_BLOCKING, &ts, &err);
  return rb_os_ok(err);
}

static void rb_os_isr_enter(void) {
  CPU_SR_ALLOC();
  CPU_CRITICAL_ENTER();
  OSIntEnter();
  CPU_CRITICAL_EXIT();
}

static void rb_os_isr_exit(void) {
  OSIntExit();
}

static int rb_os_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  OS_ERR err;
  OSQCreate(&rb_os_queue[id], "rb", 1u, &err);
  return rb_os_ok(err);
}

static int rb_os_queue_send(int id, uint32_t msg) {
  OS_ERR err;
  for (;;) {
    OSQPost(&rb_os_queue[id], (void*)(uintptr_t)msg, (OS_MSG_SIZE)sizeof msg, OS_OPT_POST_FIFO,
            &err);
    if (err != OS_ERR_Q_MAX) {
      return rb_os_ok(err);
    }
    OSTimeDly(1u, OS_OPT_TIME_DLY, &err); /* full: wait for the receiver */
  }
}

static int rb_os_queue_receive(int id, uint32_t* msg) {
  OS_ERR err;
  OS_MSG_SIZE size = 0;
  CPU_TS ts;
  void* p = OSQPend(&rb_os_queue[id], 0u, OS_OPT_PEND_BLOCKING, &size, &ts, &err);
  *msg = (uint32_t)(uintptr_t)p;
  return rb_os_ok(err);
}

static int rb_os_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  OS_ERR err;
  OSMutexCreate(&rb_os_mutex[id], "rb", &err);
  return rb_os_ok(err);
}

static int rb_os_mutex_lock(int id) {
  OS_ERR err;
  CPU_TS ts;
  OSMutexPend(&rb_os_mutex[id], 0u, OS_OPT_PEND_BLOCKING, &ts, &err);
  return rb_os_ok(err);
}

static int rb_os_mutex_unlock(int id) {
  OS_ERR err;
  OSMutexPost(&rb_os_mutex[id], OS_OPT_POST_NONE, &err);
  return rb_os_ok(err);
}

#if OS_CFG_SCHED_ROUND_ROBIN_EN > 0u
static void rb_os_yield(void) {
  OS_ERR err;
  OSSchedRoundRobinYield(&err); /* OS_ERR_ROUND_ROBIN_1: nobody to yield to */
}
#define RB_OS_YIELD rb_os_yield
#else
#define RB_OS_YIELD 0 /* no round robin, no yield: the test is NA */
#endif

static uint32_t rb_os_critical_enter(void) {
  CPU_SR_ALLOC();
  CPU_CRITICAL_ENTER();
  return (uint32_t)cpu_sr;
}

static void rb_os_critical_exit(uint32_t state) {
  CPU_SR cpu_sr = (CPU_SR)state;
  CPU_CRITICAL_EXIT();
}

static void rb_os_delay(uint32_t ticks) {
  OS_ERR err;
  OSTimeDly((OS_TICK)ticks, OS_OPT_TIME_DLY, &err);
}

static uint32_t rb_os_tick_count(void) {
  OS_ERR err;
  return (uint32_t)OSTimeGet(&err);
}

static int rb_os_notify_give(int task_id) {
  OS_ERR err;
  (void)OSTaskSemPost(&rb_os_tcb[task_id], OS_OPT_POST_NONE, &err);
  return rb_os_ok(err);
}

static int rb_os_notify_take(int self_id) {
  (void)self_id; /* the calling task's own semaphore */
  OS_ERR err;
  CPU_TS ts;
  (void)OSTaskSemPend(0u, OS_OPT_PEND_BLOCKING, &ts, &err);
  return rb_os_ok(err);
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (os_cfg.h follows RB_CFG_CHECKS; uC-CPU's cpu.h says whether
 * CPU_CntLeadZeros is the CLZ instruction). */
#if (OS_CFG_ARG_CHK_EN > 0u) && (OS_CFG_CALLED_FROM_ISR_CHK_EN > 0u) && \
    (OS_CFG_INVALID_OS_CALLS_CHK_EN > 0u) && (OS_CFG_OBJ_TYPE_CHK_EN > 0u)
#define RB_PORT_CHECKS "on"
#elif (OS_CFG_ARG_CHK_EN == 0u) && (OS_CFG_CALLED_FROM_ISR_CHK_EN == 0u) && \
    (OS_CFG_INVALID_OS_CALLS_CHK_EN == 0u) && (OS_CFG_OBJ_TYPE_CHK_EN == 0u)
#define RB_PORT_CHECKS "off"
#else
#define RB_PORT_CHECKS "partial"
#endif
#ifdef CPU_CFG_LEAD_ZEROS_ASM_PRESENT
#define RB_PORT_LOOKUP "clz"
#else
#define RB_PORT_LOOKUP "generic"
#endif

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* No RBP_HAS_HEAP: uC/OS-III has no general-purpose allocator. Its memory
 * manager (OSMemCreate / OSMemGet / OSMemPut) hands out blocks of one fixed
 * size per partition, which cannot serve the heap test's 8..256-byte
 * requests; the test is NA (docs/kernels.md). */
const struct rbp_ops rbp_port = {
    .kernel = "ucos3",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | (RB_TIME_SLICING ? RBP_HAS_TIME_SLICE : 0u) |
            RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK | RBP_HAS_NOTIFY | RBP_HAS_ZERO_LATENCY_IRQ,
    .init = rb_os_init,
    .task_create = rb_os_task_create,
    .start = rb_os_start,
    .sem_create = rb_os_sem_create,
    .sem_give = rb_os_sem_give,
    .sem_take = rb_os_sem_take,
    .sem_give_from_isr = rb_os_sem_give,
    .isr_enter = rb_os_isr_enter,
    .isr_exit = rb_os_isr_exit,
    .queue_create = rb_os_queue_create,
    .queue_send = rb_os_queue_send,
    .queue_receive = rb_os_queue_receive,
    .mutex_create = rb_os_mutex_create,
    .mutex_lock = rb_os_mutex_lock,
    .mutex_unlock = rb_os_mutex_unlock,
    .yield = RB_OS_YIELD,
    .critical_enter = rb_os_critical_enter,
    .critical_exit = rb_os_critical_exit,
    .delay = rb_os_delay,
    .tick_count = rb_os_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* Direct task notification: the task semaphore. */
    .notify_give = rb_os_notify_give,
    .notify_take = rb_os_notify_take,
    .notify_give_from_isr = rb_os_notify_give,

    /* zero_latency_irq: CPU_CRITICAL_ENTER sets BASEPRI to
     * CPU_CFG_KA_IPL_BOUNDARY (4, cpu_cfg.h; uC-CPU cpu_a.s CPU_SR_Save);
     * the level above the boundary is never masked by the kernel. */
    .zero_latency_prio = CPU_CFG_KA_IPL_BOUNDARY - 1,
};
