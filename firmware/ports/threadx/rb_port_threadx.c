/* rtosbench port for ThreadX 6.2.0 (ports/cortex_m4/gnu, ports/cortex_m3/gnu
 * or ports/cortex_m33/gnu by the board's core, as shipped; port.cmake).
 *
 *   semaphores  tx_semaphore_create (count 0) / tx_semaphore_ceiling_put(1)
 *               (ThreadX' binary form: a put on a full semaphore returns
 *               TX_CEILING_EXCEEDED and leaves it full) / tx_semaphore_get
 *   from ISR    the same tx_semaphore_ceiling_put: ThreadX services detect
 *               ISR context themselves and the port pends PendSV, which
 *               switches on interrupt exit; Cortex-M ISRs need no
 *               _tx_thread_context_save/restore (readme_threadx.txt, 6.2)
 *   queue       tx_queue_create (one 1-ULONG message) / tx_queue_send /
 *               tx_queue_receive
 *   mutex       tx_mutex_create(TX_INHERIT) / tx_mutex_get / tx_mutex_put
 *   yield       tx_thread_relinquish
 *   critical    tx_interrupt_control(TX_INT_DISABLE) / (old posture): PRIMASK
 *   slicing     every thread is created with a 1-tick time slice
 *               (TX_NO_TIME_SLICE when RB_TIME_SLICING is 0)
 *
 * ThreadX leaves the low-level start-up (_tx_initialize_low_level) and the
 * SysTick handler to the application; both are written here.
 *
 * Idle: ThreadX has no idle thread. With nothing ready, its PendSV handler
 * spins in handler mode until an interrupt readies a thread, which only works
 * when SysTick is above PendSV (ThreadX' example uses 0x40 vs 0xFF). Every
 * rtosbench kernel has SysTick and PendSV at the same, lowest priority
 * (RB_TICK_PRIO), where that spin would block the tick forever (observed: a
 * sleeping thread never wakes). So this port creates the idle task the other
 * kernels have: a thread at ThreadX priority 31 (below every harness task),
 * 512-word stack, busy loop calling rb_idle_hook. PendSV then always finds a
 * thread to run; waking a task from idle is a thread-to-thread switch, as on
 * the other kernels. docs/kernels.md records this as a ThreadX condition. */
#include "tx_api.h"
#include "tx_byte_pool.h"
#include "tx_initialize.h"
#include "tx_thread.h"
#include "tx_timer.h"

/* The port's tick processing (src/tx_timer_interrupt.S of the CPU port);
 * ThreadX declares it in no header. */
VOID _tx_timer_interrupt(VOID);

#include "cm4_regs.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"

/* Neutral priority p (1..8, higher is more urgent) -> ThreadX 31 - p (0 is
 * the most urgent; 0 is the timer thread's). */
#define RB_TX_PRIO(p) ((UINT)(31 - (p)))

#if RB_TIME_SLICING
#define RB_TX_TIME_SLICE 1u
#define RB_TX_CAP_SLICE RBP_HAS_TIME_SLICE
#else
#define RB_TX_TIME_SLICE TX_NO_TIME_SLICE
#define RB_TX_CAP_SLICE 0u
#endif

static TX_THREAD rb_tx_thread[RBP_MAX_TASKS];
static rbp_entry_fn rb_tx_entry_fn[RBP_MAX_TASKS];
static void* rb_tx_entry_arg[RBP_MAX_TASKS];
static TX_SEMAPHORE rb_tx_sem[RBP_MAX_SEMS];
static TX_QUEUE rb_tx_queue[RBP_MAX_QUEUES];
static ULONG rb_tx_queue_store[RBP_MAX_QUEUES][1];
static TX_MUTEX rb_tx_mutex[RBP_MAX_MUTEXES];

static TX_THREAD rb_tx_idle_thread;
static uint32_t rb_tx_idle_stack[RB_STACK_WORDS] __attribute__((aligned(8)));
#define RB_TX_IDLE_PRIO (TX_MAX_PRIORITIES - 1u)

/* ---- What ThreadX expects from the application --------------------------- */

extern uint32_t _estack; /* initial MSP, from the linker script */

/* Called by _tx_initialize_kernel_setup with interrupts about to be masked
 * until the scheduler starts (ThreadX' own convention). */
void _tx_initialize_low_level(void) {
  __asm volatile("cpsid i" ::: "memory");
  _tx_thread_system_stack_ptr = (VOID*)&_estack;
  _tx_initialize_unused_memory = TX_NULL; /* the port allocates nothing at run time */
  /* SVCall, PendSV and SysTick at the lowest priority, RB_TICK_PRIO: ThreadX
   * requires PendSV lowest; SysTick joins it as for every kernel. */
  SCB_SHPR2 = (SCB_SHPR2 & 0x00FFFFFFu) | ((uint32_t)RB_PRIO_BYTE(RB_TICK_PRIO) << 24);
  rb_cm_tick_prio_set();
}

/* Objects are created by the harness through the port before tx_kernel_enter
 * (after _tx_initialize_kernel_setup), so there is nothing left to do here. */
void tx_application_define(void* first_unused_memory) {
  (void)first_unused_memory;
}

/* The SysTick handler is the application's in ThreadX (the example puts it in
 * tx_initialize_low_level.S): the tick hook, then the kernel's timer
 * interrupt processing. */
void SysTick_Handler(void) {
  rb_tick_hook();
  _tx_timer_interrupt();
}

/* The idle task: never blocks, never sleeps (see the header comment). */
static VOID rb_tx_idle_entry(ULONG unused) {
  (void)unused;
  for (;;) {
    rb_idle_hook();
  }
}

/* ThreadX entry functions take a ULONG; the harness passes a pointer. */
static VOID rb_tx_trampoline(ULONG id) {
  rb_tx_entry_fn[id](rb_tx_entry_arg[id]);
}

/* ---- Port operations ---------------------------------------------------- */

/* The heap test's byte pool (RBP_HAS_HEAP), on a static RB_HEAP_BYTES arena. */
static TX_BYTE_POOL rb_tx_pool;
static ULONG rb_tx_arena[RB_HEAP_BYTES / sizeof(ULONG)] __attribute__((aligned(8)));

static int rb_tx_init(void) {
  /* Low- and high-level initialisation (timer thread included) now, so the
   * harness can create objects before start(); tx_kernel_enter then skips
   * it (TX_INITIALIZE_ALMOST_DONE). */
  _tx_initialize_kernel_setup();
  UINT rc = tx_thread_create(&rb_tx_idle_thread, "idle", rb_tx_idle_entry, 0, rb_tx_idle_stack,
                             sizeof rb_tx_idle_stack, RB_TX_IDLE_PRIO, RB_TX_IDLE_PRIO,
                             TX_NO_TIME_SLICE, TX_AUTO_START);
  rc |= tx_byte_pool_create(&rb_tx_pool, "rb_heap", rb_tx_arena, sizeof rb_tx_arena);
  return rc == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                             uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  rb_tx_entry_fn[id] = entry;
  rb_tx_entry_arg[id] = arg;
  const UINT p = RB_TX_PRIO(prio);
  /* Preemption threshold = priority: no threshold. Time slice: one tick. */
  UINT rc = tx_thread_create(&rb_tx_thread[id], (CHAR*)name, rb_tx_trampoline, (ULONG)id, stack,
                             stack_words * sizeof(uint32_t), p, p, RB_TX_TIME_SLICE, TX_AUTO_START);
  return rc == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static void rb_tx_start(void) {
  /* The tick: SysTick from the core clock, first interrupt one period after
   * the scheduler unmasks interrupts. */
  rb_cm_systick_start(RB_CORE_HZ / RB_CFG_TICK_HZ);
  tx_kernel_enter();
}

static int rb_tx_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  return tx_semaphore_create(&rb_tx_sem[id], "rb", 0) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_sem_give(int id) {
  UINT rc = tx_semaphore_ceiling_put(&rb_tx_sem[id], 1u);
  return (rc == TX_SUCCESS || rc == TX_CEILING_EXCEEDED) ? RBP_OK : RBP_ERR;
}

static int rb_tx_sem_take(int id) {
  return tx_semaphore_get(&rb_tx_sem[id], TX_WAIT_FOREVER) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

/* ThreadX needs no bookkeeping at ISR entry and exit on Cortex-M. */
static void rb_tx_isr_nothing(void) {}

static int rb_tx_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  UINT rc = tx_queue_create(&rb_tx_queue[id], "rb", TX_1_ULONG, rb_tx_queue_store[id],
                            sizeof rb_tx_queue_store[id]);
  return rc == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_queue_send(int id, uint32_t msg) {
  ULONG m = msg;
  return tx_queue_send(&rb_tx_queue[id], &m, TX_WAIT_FOREVER) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_queue_receive(int id, uint32_t* msg) {
  ULONG m = 0;
  UINT rc = tx_queue_receive(&rb_tx_queue[id], &m, TX_WAIT_FOREVER);
  *msg = (uint32_t)m;
  return rc == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  return tx_mutex_create(&rb_tx_mutex[id], "rb", TX_INHERIT) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_mutex_lock(int id) {
  return tx_mutex_get(&rb_tx_mutex[id], TX_WAIT_FOREVER) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_mutex_unlock(int id) {
  return tx_mutex_put(&rb_tx_mutex[id]) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static void rb_tx_yield(void) {
  tx_thread_relinquish();
}

static uint32_t rb_tx_critical_enter(void) {
  return (uint32_t)tx_interrupt_control(TX_INT_DISABLE);
}

static void rb_tx_critical_exit(uint32_t state) {
  (void)tx_interrupt_control((UINT)state);
}

static void rb_tx_delay(uint32_t ticks) {
  (void)tx_thread_sleep((ULONG)ticks);
}

static uint32_t rb_tx_tick_count(void) {
  return (uint32_t)tx_time_get();
}

/* ---- Heap (RBP_HAS_HEAP): a tx_byte_pool on rb_tx_arena ------------------
 * tx_byte_allocate rounds a request up to ALIGN_TYPE (4 bytes) and puts an
 * 8-byte header before each block; the port rounds requests up to 8 so that,
 * from the 8-aligned arena, every block stays 8-aligned. TX_NO_WAIT: no
 * suspension. Free bytes: tx_byte_pool_info_get's available bytes (free
 * blocks with their headers). Largest: ThreadX has no call for it, and it
 * merges adjacent free blocks only when an allocation's search walks over
 * them (tx_byte_pool_search.c), not on release; the port walks the pool's
 * block list (each block: the next block's address, then TX_BYTE_BLOCK_FREE
 * or the owning pool) in a critical section and reports the largest run of
 * adjacent free blocks, headers included: the largest block a search can
 * make. */
static void* rb_tx_heap_alloc(uint32_t bytes) {
  VOID* p = TX_NULL;
  if (tx_byte_allocate(&rb_tx_pool, &p, (bytes + 7u) & ~7u, TX_NO_WAIT) != TX_SUCCESS) {
    return 0;
  }
  return p;
}

static int rb_tx_heap_free(void* block) {
  return tx_byte_release(block) == TX_SUCCESS ? RBP_OK : RBP_ERR;
}

static int rb_tx_heap_stats(struct rbp_heap_stats* s) {
  ULONG available = 0, fragments = 0;
  if (tx_byte_pool_info_get(&rb_tx_pool, TX_NULL, &available, &fragments, TX_NULL, TX_NULL,
                            TX_NULL) != TX_SUCCESS) {
    return RBP_ERR;
  }
  UINT old = tx_interrupt_control(TX_INT_DISABLE);
  UCHAR* const start = rb_tx_pool.tx_byte_pool_start;
  UCHAR* p = start;
  uint32_t run = 0, largest = 0;
  do {
    UCHAR* next = *(UCHAR**)p;
    const ALIGN_TYPE owner = *(ALIGN_TYPE*)(p + sizeof(UCHAR*));
    if (owner == TX_BYTE_BLOCK_FREE && next > p) {
      run += (uint32_t)(next - p);
      largest = run > largest ? run : largest;
    } else {
      run = 0;
    }
    p = next;
  } while (p != start);
  tx_interrupt_control(old);
  s->arena_bytes = (uint32_t)rb_tx_pool.tx_byte_pool_size;
  s->free_bytes = (uint32_t)available;
  s->largest_free = largest;
  return RBP_OK;
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (tx_user.h follows RB_CFG_CHECKS). The ready-priority lookup is
 * the port's TX_LOWEST_SET_BIT_CALCULATE (inc/tx_port.h of each of the three
 * CPU ports: RBIT then CLZ), which ThreadX always uses there. */
#ifdef TX_DISABLE_ERROR_CHECKING
#define RB_PORT_CHECKS "off"
#else
#define RB_PORT_CHECKS "on"
#endif
#define RB_PORT_LOOKUP "clz"

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

const struct rbp_ops rbp_port = {
    .kernel = "threadx",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RB_TX_CAP_SLICE | RBP_HAS_TICK_HOOK |
            RBP_HAS_IDLE_HOOK | RBP_HAS_HEAP,
    .init = rb_tx_init,
    .task_create = rb_tx_task_create,
    .start = rb_tx_start,
    .sem_create = rb_tx_sem_create,
    .sem_give = rb_tx_sem_give,
    .sem_take = rb_tx_sem_take,
    .sem_give_from_isr = rb_tx_sem_give,
    .isr_enter = rb_tx_isr_nothing,
    .isr_exit = rb_tx_isr_nothing,
    .queue_create = rb_tx_queue_create,
    .queue_send = rb_tx_queue_send,
    .queue_receive = rb_tx_queue_receive,
    .mutex_create = rb_tx_mutex_create,
    .mutex_lock = rb_tx_mutex_lock,
    .mutex_unlock = rb_tx_mutex_unlock,
    .yield = rb_tx_yield,
    .critical_enter = rb_tx_critical_enter,
    .critical_exit = rb_tx_critical_exit,
    .delay = rb_tx_delay,
    .tick_count = rb_tx_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_tx_heap_alloc,
    .heap_free = rb_tx_heap_free,
    .heap_stats = rb_tx_heap_stats,
};
