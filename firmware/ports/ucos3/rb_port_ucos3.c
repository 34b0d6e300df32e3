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
 *   yield       OSSchedRoundRobinYield
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
 * The kernel's SysTick and PendSV handlers are used as shipped under the
 * vector table's names (port.cmake renames them at compile time);
 * OS_CPU_SysTickInit programs SysTick at the kernel-aware boundary priority,
 * so start() moves it to RB_TICK_PRIO, the same for every kernel. */
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

/* ---- Port operations ---------------------------------------------------- */

static int rb_os_init(void) {
  OS_ERR err;
  CPU_Init();
  OSInit(&err);
  if (err != OS_ERR_NONE) {
    return RBP_ERR;
  }
  OS_AppIdleTaskHookPtr = rb_idle_hook;
  OS_AppTimeTickHookPtr = rb_tick_hook;
  OSSchedRoundRobinCfg(RB_TIME_SLICING ? DEF_ENABLED : DEF_DISABLED, 1u, &err);
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
  OS_CPU_SysTickInit(RB_CORE_HZ / RB_CFG_TICK_HZ);
  SCB_SHPR3 = (SCB_SHPR3 & 0x00FFFFFFu) | ((uint32_t)RB_PRIO_BYTE(RB_TICK_PRIO) << 24);
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

static void rb_os_yield(void) {
  OS_ERR err;
  OSSchedRoundRobinYield(&err); /* OS_ERR_ROUND_ROBIN_1: nobody to yield to */
}

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
    .yield = rb_os_yield,
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
