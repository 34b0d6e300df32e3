/* rtosbench port for LiteOS-M 1.1.0 (OpenHarmony kernel_liteos_m,
 * OpenHarmony_release_v1.1.0; arch/arm/cortex-m4/gcc, or arch/arm/cortex-m33/gcc
 * on a Cortex-M33 board, as shipped).
 *
 *   tasks       LOS_TaskCreate; the stack comes from the kernel's memory pool
 *               (LiteOS-M 1.1 has no static creation), 2048 bytes like every
 *               task's; priorities 10 - p (0 is the most urgent, 31 idle)
 *   semaphores  LOS_BinarySemCreate(0) / LOS_SemPost / LOS_SemPend(forever)
 *   from ISR    LOS_SemPost from the test-timer handler, which the kernel's
 *               dispatcher (HalInterrupt, g_intCount) runs: in an interrupt
 *               LOS_Schedule only pends PendSV, so the switch happens on
 *               exit. isr_enter/isr_exit have nothing left to do
 *   queue       LOS_QueueCreate(length 1, 4-byte messages) with the copying
 *               calls LOS_QueueWriteCopy / LOS_QueueReadCopy (the message is
 *               copied into and out of the queue's buffer, as FreeRTOS does;
 *               LOS_QueueWrite/LOS_QueueRead would pass a pointer's value)
 *   mutex       LOS_MuxCreate / LOS_MuxPend(forever) / LOS_MuxPost (priority
 *               inheritance built in; LiteOS mutexes are recursive, the
 *               harness never nests them)
 *   yield       LOS_TaskYield
 *   critical    LOS_IntLock / LOS_IntRestore (PRIMASK)
 *   interrupts  the kernel's vector table and dispatcher (HalHwiInit moves
 *               VTOR to g_hwiForm): init registers the board's interrupt
 *               handlers with HalHwiCreate (LiteOS-M 1.1's LOS_HwiCreate) at
 *               the priorities the board set; HalTickStart registers the tick
 *               handler and programs SysTick
 *   tick hook   LiteOS-M 1.1 has none: start passes the kernel's
 *               HalStartSchedule (what LOS_Start does) a tick handler that
 *               calls rb_tick_hook and then OsTickHandler
 *   idle hook   LiteOS-M 1.1 has none: the kernel's idle loop is a weak
 *               OsIdleTask; the port's busy loop calls rb_idle_hook (the
 *               kernel's only recycles deleted tasks, and sleeps only with
 *               LOSCFG_KERNEL_RUNSTOP; nothing is ever deleted here) */
#include "los_arch_interrupt.h"
#include "los_config.h"
#include "los_debug.h"
#include "los_interrupt.h"
#include "los_memory.h"
#include "los_mux.h"
#include "los_queue.h"
#include "los_sem.h"
#include "los_task.h"
#include "los_tick.h"
#include "rb_port.h"

/* The Cortex-M33 port lays out a task's frame by __FPU_USED in C
 * (core_cm33.h, from the float ABI) and saves and restores it by the same
 * macro in its assembly, which port.cmake defines there in FP builds only:
 * both halves must follow RB_FPU_CONTEXT. */
#if defined(RB_LOS_CM33) && ((__FPU_USED == 1U) != (RB_CFG_FPU_CONTEXT == 1))
#error \
    "liteos_m on a Cortex-M33: __FPU_USED does not follow RB_FPU_CONTEXT (ports/liteos_m/port.cmake)"
#endif

/* LiteOS-M 1.1 has no static task creation: its tasks run on stacks from
 * its pool, never on the harness' (docs/kernels.md). */
const char* const rbp_stack_unseen = "LiteOS-M 1.1 allocates every task stack from its pool";

/* Neutral 1..8 -> LiteOS 10 - p = 9..2; the software-timer task is at 0,
 * idle at 31. */
#define RB_LOS_PRIO(p) ((UINT16)(10 - (p)))

static UINT32 rb_los_task[RBP_MAX_TASKS];
static rbp_entry_fn rb_los_entry_fn[RBP_MAX_TASKS];
static void* rb_los_entry_arg[RBP_MAX_TASKS];
static UINT32 rb_los_sem[RBP_MAX_SEMS];
static UINT32 rb_los_queue[RBP_MAX_QUEUES];
static UINT32 rb_los_mutex[RBP_MAX_MUTEXES];

/* ---- Kernel callbacks --------------------------------------------------- */

/* The idle task (the kernel's weak OsIdleTask replaced): busy, never sleeps. */
VOID OsIdleTask(VOID);
VOID OsIdleTask(VOID) {
  for (;;) {
    rb_idle_hook();
  }
}

/* The tick handler the kernel's dispatcher runs for SysTick. */
static VOID rb_los_tick(VOID) {
  rb_tick_hook();
  OsTickHandler();
}

/* The kernel's exception hook: a failed LOS_ASSERT, the task-switch stack
 * check (RB_CHECKS=on) or a fault the kernel's handlers caught (they replace
 * the board's in the kernel's vector table) stops the firmware with a fault
 * line instead of the kernel's silent spin (no console output here). */
static const char rb_los_exc_assert[] = "LiteOS-M: LOS_ASSERT failed";
static const char rb_los_exc_stack[] = "LiteOS-M: task stack overflow (OsTaskSwitchCheck)";
static const char rb_los_exc_fault[] = "LiteOS-M: exception (HalExcHandleEntry)";
static const char rb_los_exc_other[] = "LiteOS-M: exception hook";

static VOID rb_los_exc_hook(EXC_TYPE type) {
  switch (type) {
    case EXC_ASSERT:
      rb_fatal(rb_los_exc_assert);
    case EXC_STACKOVERFLOW:
      rb_fatal(rb_los_exc_stack);
    case EXC_INTERRUPT:
      rb_fatal(rb_los_exc_fault);
    default:
      rb_fatal(rb_los_exc_other);
  }
}

/* The target's console (LiteOS-M targets provide printf, e.g. the F429
 * target's dprintf.c). With LOSCFG_KERNEL_PRINTF 0 the kernel's log macros
 * print nothing; the one direct printf left in the compiled kernel is the
 * error report of HalTskStackInit (los_context.c of the arch port)
 * when memset_s fails, so a call is a kernel error: it stops the firmware. */
static const char rb_los_printf_called[] = "LiteOS-M: kernel error message (printf)";
int printf(const char* fmt, ...) {
  (void)fmt;
  rb_fatal(rb_los_printf_called);
}

/* LiteOS passes a task its argument as a UINT32; the harness' entry takes a
 * pointer: the argument is the harness' task id. Runs once per task. */
static VOID* rb_los_entry(UINT32 id) {
  rb_los_entry_fn[id](rb_los_entry_arg[id]);
  return NULL;
}

/* ---- Port operations ---------------------------------------------------- */

/* boards/common/startup.c: the board's vector table holds this for every
 * interrupt it does not handle. */
void Default_Handler(void);

/* The board's interrupts (those its vector table does not leave to
 * Default_Handler) moved into the kernel's table, at the priorities the board
 * gave them; each stays disabled until the board enables it, as before. */
static int rb_los_hwi_adopt(void (*const* board_vectors)(void)) {
  for (UINT32 n = 0; n < LOSCFG_PLATFORM_HWI_LIMIT; n++) {
    void (*handler)(void) = board_vectors[OS_SYS_VECTOR_CNT + n];
    if (handler == Default_Handler) {
      continue;
    }
    const UINT32 enabled = NVIC_GetEnableIRQ((IRQn_Type)n);
    const HWI_PRIOR_T prio = (HWI_PRIOR_T)NVIC_GetPriority((IRQn_Type)n);
    if (HalHwiCreate(n, prio, 0, (HWI_PROC_FUNC)handler, 0) != LOS_OK) {
      return RBP_ERR;
    }
    if (!enabled) {
      NVIC_DisableIRQ((IRQn_Type)n); /* HalHwiCreate enables it */
    }
  }
  return RBP_OK;
}

/* The heap test's pool (RBP_HAS_HEAP): a second pool of the kernel's own
 * allocator on a static RB_HEAP_BYTES arena, apart from the kernel's pool. */
static uint64_t rb_los_arena[RB_HEAP_BYTES / sizeof(uint64_t)];

static int rb_los_init(void) {
  void (*const* board_vectors)(void) = (void (*const*)(void))(uintptr_t)SCB->VTOR;
  /* Memory pool, the kernel's vector table (HalHwiInit), tasks, semaphores,
   * mutexes, queues, software timers (their task and queue) and the idle
   * task. */
  if (LOS_KernelInit() != LOS_OK) {
    return RBP_ERR;
  }
  OsExcHookRegister(rb_los_exc_hook);
  if (LOS_MemInit(rb_los_arena, sizeof rb_los_arena) != LOS_OK) {
    return RBP_ERR;
  }
  return rb_los_hwi_adopt(board_vectors);
}

static int rb_los_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                              uint32_t* stack, uint32_t stack_words) {
  (void)stack; /* the kernel allocates the stack (see above) */
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  rb_los_entry_fn[id] = entry;
  rb_los_entry_arg[id] = arg;
  TSK_INIT_PARAM_S p = {
      .pfnTaskEntry = rb_los_entry,
      .usTaskPrio = RB_LOS_PRIO(prio),
      .uwArg = (UINT32)id,
      .uwStackSize = stack_words * sizeof(uint32_t),
      .pcName = (CHAR*)name,
  };
  return LOS_TaskCreate(&rb_los_task[id], &p) == LOS_OK ? RBP_OK : RBP_ERR;
}

static void rb_los_start(void) {
  /* LOS_Start() is HalStartSchedule(OsTickHandler): HalTickStart registers
   * the tick handler and programs SysTick (lowest priority), HalStartToRun
   * sets PendSV to the lowest priority and runs the first task. */
  (void)HalStartSchedule(rb_los_tick);
}

static int rb_los_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  return LOS_BinarySemCreate(0, &rb_los_sem[id]) == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_sem_give(int id) {
  /* LOS_ERRNO_SEM_OVERFLOW only means the semaphore was already full: it
   * stays full, which is what the port API asks of a binary semaphore. */
  const UINT32 rc = LOS_SemPost(rb_los_sem[id]);
  return (rc == LOS_OK || rc == LOS_ERRNO_SEM_OVERFLOW) ? RBP_OK : RBP_ERR;
}

static int rb_los_sem_take(int id) {
  return LOS_SemPend(rb_los_sem[id], LOS_WAIT_FOREVER) == LOS_OK ? RBP_OK : RBP_ERR;
}

/* The kernel's dispatcher (HalInterrupt) does the interrupt bookkeeping. */
static void rb_los_isr_nothing(void) {}

static int rb_los_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  return LOS_QueueCreate(NULL, 1, &rb_los_queue[id], 0, sizeof(uint32_t)) == LOS_OK ? RBP_OK
                                                                                    : RBP_ERR;
}

static int rb_los_queue_send(int id, uint32_t msg) {
  const UINT32 rc = LOS_QueueWriteCopy(rb_los_queue[id], &msg, sizeof msg, LOS_WAIT_FOREVER);
  return rc == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_queue_receive(int id, uint32_t* msg) {
  UINT32 size = sizeof *msg;
  const UINT32 rc = LOS_QueueReadCopy(rb_los_queue[id], msg, &size, LOS_WAIT_FOREVER);
  return rc == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  return LOS_MuxCreate(&rb_los_mutex[id]) == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_mutex_lock(int id) {
  return LOS_MuxPend(rb_los_mutex[id], LOS_WAIT_FOREVER) == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_mutex_unlock(int id) {
  return LOS_MuxPost(rb_los_mutex[id]) == LOS_OK ? RBP_OK : RBP_ERR;
}

static void rb_los_yield(void) {
  /* LOS_ERRNO_TSK_YIELD_NOT_ENOUGH_TASK: no other ready task at this
   * priority, nothing to give up to. */
  (void)LOS_TaskYield();
}

static uint32_t rb_los_critical_enter(void) {
  return (uint32_t)LOS_IntLock();
}

static void rb_los_critical_exit(uint32_t state) {
  LOS_IntRestore((UINTPTR)state);
}

static void rb_los_delay(uint32_t ticks) {
  (void)LOS_TaskDelay((UINT32)ticks);
}

static uint32_t rb_los_tick_count(void) {
  return (uint32_t)LOS_TickCountGet();
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (target_config.h follows RB_CFG_CHECKS). The argument checks are
 * always compiled: off is partial. */
#if LOSCFG_BASE_CORE_TSK_MONITOR
#define RB_PORT_CHECKS "on"
#else
#define RB_PORT_CHECKS "partial"
#endif
/* OsPriqueueTop (kernel/src/los_task.c) always takes CLZ(g_priqueueBitmap),
 * CLZ being __builtin_clz (utils/los_compiler.h): LiteOS-M 1.1 has no other
 * lookup. */
#define RB_PORT_LOOKUP "clz"

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* ---- Heap (RBP_HAS_HEAP): LOS_MemAlloc's TLSF allocator on rb_los_arena ---
 * LOS_MemAlloc aligns to sizeof(UINTPTR) (4, OS_MEM_ALIGN_SIZE); the port
 * asks for 8 through the kernel's own LOS_MemAllocAlign (which allocates
 * size + 8 and marks the node aligned; LOS_MemFree takes such a block).
 * LOS_MemInfoGet walks the pool: free bytes (totalFreeSize) and the largest
 * free node (maxFreeNodeSize), both with the nodes' headers. */
static void* rb_los_heap_alloc(uint32_t bytes) {
  return LOS_MemAllocAlign(rb_los_arena, bytes, 8u);
}

static int rb_los_heap_free(void* block) {
  return LOS_MemFree(rb_los_arena, block) == LOS_OK ? RBP_OK : RBP_ERR;
}

static int rb_los_heap_stats(struct rbp_heap_stats* s) {
  /* LOS_MemInfoGet adds to the fields: they start at 0. */
  LOS_MEM_POOL_STATUS st = {0};
  if (LOS_MemInfoGet(rb_los_arena, &st) != LOS_OK) {
    return RBP_ERR;
  }
  s->arena_bytes = (uint32_t)sizeof rb_los_arena;
  s->free_bytes = st.totalFreeSize;
  s->largest_free = st.maxFreeNodeSize;
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "liteos_m",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TICK_HOOK | RBP_HAS_IDLE_HOOK
#if LOSCFG_BASE_CORE_TIMESLICE
            | RBP_HAS_TIME_SLICE
#endif
            | RBP_HAS_HEAP,
    .init = rb_los_init,
    .task_create = rb_los_task_create,
    .start = rb_los_start,
    .sem_create = rb_los_sem_create,
    .sem_give = rb_los_sem_give,
    .sem_take = rb_los_sem_take,
    .sem_give_from_isr = rb_los_sem_give,
    .isr_enter = rb_los_isr_nothing,
    .isr_exit = rb_los_isr_nothing,
    .queue_create = rb_los_queue_create,
    .queue_send = rb_los_queue_send,
    .queue_receive = rb_los_queue_receive,
    .mutex_create = rb_los_mutex_create,
    .mutex_lock = rb_los_mutex_lock,
    .mutex_unlock = rb_los_mutex_unlock,
    .yield = rb_los_yield,
    .critical_enter = rb_los_critical_enter,
    .critical_exit = rb_los_critical_exit,
    .delay = rb_los_delay,
    .tick_count = rb_los_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_los_heap_alloc,
    .heap_free = rb_los_heap_free,
    .heap_stats = rb_los_heap_stats,
};
