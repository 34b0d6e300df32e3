/* rtosbench port for TencentOS-tiny 2.5.2 (arch/arm/arm-v7m/cortex-m4/gcc,
 * cortex-m3/gcc or arch/arm/arm-v8m/cortex-m33/gcc by the board's core, as
 * shipped).
 *
 *   semaphores  tos_sem_create_max(0, max 1): binary; a post on a full one
 *               returns K_ERR_SEM_OVERFLOW and leaves it full / tos_sem_post /
 *               tos_sem_pend(TOS_TIME_FOREVER)
 *   from ISR    isr_enter = tos_knl_irq_enter, tos_sem_post, isr_exit =
 *               tos_knl_irq_leave, which pends PendSV for the switch on exit
 *   queue       tos_msg_q_create (one slot); the uint32 travels as the message
 *               pointer. tos_msg_q_post never blocks: when full the port waits
 *               a tick and retries (never reached by the harness, whose
 *               receiver has the higher priority)
 *   mutex       tos_mutex_create / tos_mutex_pend / tos_mutex_post
 *               (priority inheritance built in)
 *   yield       tos_task_yield
 *   critical    TOS_CPU_INT_DISABLE / TOS_CPU_INT_ENABLE (PRIMASK, nesting
 *               through the saved state)
 *   slicing     round robin on (TOS_CFG_ROUND_ROBIN_EN follows RB_TIME_SLICING),
 *               every task's time slice 1 tick
 *
 * The SysTick handler belongs to the application in TencentOS (the board
 * examples' stm32f4xx_it.c): written here, with the tick hook. TencentOS
 * starts SysTick in tos_knl_init (init), the handler ignores ticks until
 * tos_knl_start. Its idle task has no hook, so this port has no idle hook
 * (RBP_HAS_IDLE_HOOK not set; the harness then waits with a delay). */
#include "rb_port.h"
#include "tos_k.h"

/* Neutral 1..8 -> TencentOS 8 - p = 7..0 (0 is the most urgent); the timer
 * task is at 8, idle at 9. */
#define RB_TOS_PRIO(p) ((k_prio_t)(8 - (p)))

static k_task_t rb_tos_task[RBP_MAX_TASKS];
static k_sem_t rb_tos_sem[RBP_MAX_SEMS];
static k_msg_q_t rb_tos_queue[RBP_MAX_QUEUES];
static void* rb_tos_queue_pool[RBP_MAX_QUEUES][1];
static k_mutex_t rb_tos_mutex[RBP_MAX_MUTEXES];

void SysTick_Handler(void) {
  if (tos_knl_is_running()) {
    tos_knl_irq_enter();
    rb_tick_hook();
    tos_tick_handler();
    tos_knl_irq_leave();
  }
}

/* ---- Port operations ---------------------------------------------------- */

/* The heap test's arena (RBP_HAS_HEAP). */
static uint64_t rb_tos_arena[RB_HEAP_BYTES / sizeof(uint64_t)];

static int rb_tos_init(void) {
  if (tos_knl_init() != K_ERR_NONE) {
    return RBP_ERR;
  }
  return tos_mmheap_pool_add(rb_tos_arena, sizeof rb_tos_arena) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                              uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  /* Time slice: one tick. */
  k_err_t err = tos_task_create(&rb_tos_task[id], (char*)name, entry, arg, RB_TOS_PRIO(prio),
                                (k_stack_t*)stack, stack_words * sizeof(uint32_t), 1u);
  return err == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static void rb_tos_start(void) {
  (void)tos_knl_start();
}

static int rb_tos_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  return tos_sem_create_max(&rb_tos_sem[id], 0u, 1u) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_sem_give(int id) {
  k_err_t err = tos_sem_post(&rb_tos_sem[id]);
  return (err == K_ERR_NONE || err == K_ERR_SEM_OVERFLOW) ? RBP_OK : RBP_ERR;
}

static int rb_tos_sem_take(int id) {
  return tos_sem_pend(&rb_tos_sem[id], TOS_TIME_FOREVER) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static void rb_tos_isr_enter(void) {
  tos_knl_irq_enter();
}

static void rb_tos_isr_exit(void) {
  tos_knl_irq_leave();
}

static int rb_tos_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  k_err_t err = tos_msg_q_create(&rb_tos_queue[id], rb_tos_queue_pool[id], 1u);
  return err == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_queue_send(int id, uint32_t msg) {
  for (;;) {
    k_err_t err = tos_msg_q_post(&rb_tos_queue[id], (void*)(uintptr_t)msg);
    if (err != K_ERR_RING_Q_FULL) {
      return err == K_ERR_NONE ? RBP_OK : RBP_ERR;
    }
    (void)tos_task_delay(1u); /* full: wait for the receiver */
  }
}

static int rb_tos_queue_receive(int id, uint32_t* msg) {
  void* p = K_NULL;
  k_err_t err = tos_msg_q_pend(&rb_tos_queue[id], &p, TOS_TIME_FOREVER);
  *msg = (uint32_t)(uintptr_t)p;
  return err == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  return tos_mutex_create(&rb_tos_mutex[id]) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_mutex_lock(int id) {
  return tos_mutex_pend(&rb_tos_mutex[id]) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static int rb_tos_mutex_unlock(int id) {
  return tos_mutex_post(&rb_tos_mutex[id]) == K_ERR_NONE ? RBP_OK : RBP_ERR;
}

static void rb_tos_yield(void) {
  tos_task_yield();
}

static uint32_t rb_tos_critical_enter(void) {
  TOS_CPU_CPSR_ALLOC();
  TOS_CPU_INT_DISABLE();
  return (uint32_t)cpu_cpsr;
}

static void rb_tos_critical_exit(uint32_t state) {
  cpu_cpsr_t cpu_cpsr = (cpu_cpsr_t)state;
  TOS_CPU_INT_ENABLE();
}

static void rb_tos_delay(uint32_t ticks) {
  (void)tos_task_delay((k_tick_t)ticks);
}

static uint32_t rb_tos_tick_count(void) {
  return (uint32_t)tos_systick_get();
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (tos_config.h follows RB_CFG_CHECKS). TOS_PTR_SANITY_CHECK and
 * TOS_IN_IRQ_CHECK cannot be compiled out: with object verification off the
 * checks are partial. The ready-priority lookup (tos_sched.c, readyqueue_prio_highest_get)
 * calls tos_cpu_clz, which is port_s.S's CLZ instruction when the port's
 * port_config.h sets TOS_CFG_CPU_LEAD_ZEROS_ASM_PRESENT to 1. */
#if TOS_CFG_OBJECT_VERIFY_EN > 0u
#define RB_PORT_CHECKS "on"
#else
#define RB_PORT_CHECKS "partial"
#endif
#if defined(TOS_CFG_CPU_LEAD_ZEROS_ASM_PRESENT) && (TOS_CFG_CPU_LEAD_ZEROS_ASM_PRESENT == 1u)
#define RB_PORT_LOOKUP "clz"
#else
#define RB_PORT_LOOKUP "generic"
#endif

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* ---- Heap (RBP_HAS_HEAP): tos_mmheap, TencentOS' TLSF, on rb_tos_arena ----
 * tos_mmheap_alloc aligns to 4 only (K_MMHEAP_ALIGN_SIZE); the port asks for
 * 8 through the kernel's own tos_mmheap_aligned_alloc. Free bytes:
 * tos_mmheap_pool_check (free blocks' payloads, headers not counted).
 * Largest: the kernel has no call for it; the port walks the pool's physical
 * blocks as tos_mmheap_pool_check does (each block: the previous block's
 * address, then its payload size with two flag bits; the next block starts
 * at the payload's end minus one word) and reports the largest free payload.
 * TLSF rounds a request up to its size class, so the largest request that
 * succeeds can be smaller. */
static void* rb_tos_heap_alloc(uint32_t bytes) {
  return tos_mmheap_aligned_alloc((size_t)bytes, 8u);
}

static int rb_tos_heap_free(void* block) {
  tos_mmheap_free(block);
  return RBP_OK;
}

static int rb_tos_heap_stats(struct rbp_heap_stats* s) {
  k_mmheap_info_t info;
  if (tos_mmheap_pool_check(rb_tos_arena, &info) != K_ERR_NONE) {
    return RBP_ERR;
  }
  TOS_CPU_CPSR_ALLOC();
  TOS_CPU_INT_DISABLE();
  uint32_t largest = 0;
  const mmheap_blk_t* blk =
      (const mmheap_blk_t*)((uint8_t*)rb_tos_arena - K_MMHEAP_BLK_HEADER_OVERHEAD);
  for (;;) {
    const size_t size = blk->size & K_MMHEAP_BLOCK_SIZE_MASK;
    if (size == 0u) {
      break; /* the sentinel block at the pool's end */
    }
    if ((blk->size & K_MMHEAP_BLOCK_CURR_FREE) && size > largest) {
      largest = (uint32_t)size;
    }
    blk = (const mmheap_blk_t*)((const uint8_t*)blk + K_MMHEAP_BLK_START_OFFSET + size -
                                K_MMHEAP_BLK_HEADER_OVERHEAD);
  }
  TOS_CPU_INT_ENABLE();
  s->arena_bytes = (uint32_t)sizeof rb_tos_arena;
  s->free_bytes = (uint32_t)info.free;
  s->largest_free = largest;
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "tencentos",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | (TOS_CFG_ROUND_ROBIN_EN ? RBP_HAS_TIME_SLICE : 0u) |
            RBP_HAS_TICK_HOOK | RBP_HAS_HEAP,
    .init = rb_tos_init,
    .task_create = rb_tos_task_create,
    .start = rb_tos_start,
    .sem_create = rb_tos_sem_create,
    .sem_give = rb_tos_sem_give,
    .sem_take = rb_tos_sem_take,
    .sem_give_from_isr = rb_tos_sem_give,
    .isr_enter = rb_tos_isr_enter,
    .isr_exit = rb_tos_isr_exit,
    .queue_create = rb_tos_queue_create,
    .queue_send = rb_tos_queue_send,
    .queue_receive = rb_tos_queue_receive,
    .mutex_create = rb_tos_mutex_create,
    .mutex_lock = rb_tos_mutex_lock,
    .mutex_unlock = rb_tos_mutex_unlock,
    .yield = rb_tos_yield,
    .critical_enter = rb_tos_critical_enter,
    .critical_exit = rb_tos_critical_exit,
    .delay = rb_tos_delay,
    .tick_count = rb_tos_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_tos_heap_alloc,
    .heap_free = rb_tos_heap_free,
    .heap_stats = rb_tos_heap_stats,
};
