/* rtosbench port for RT-Thread Nano 3.1.5 (libcpu/arm/cortex-m4 as shipped;
 * cortex-m3 or cortex-m33 on those cores, port.cmake).
 *
 *   semaphores  rt_sem_init (value 0, RT_IPC_FLAG_PRIO) / rt_sem_release /
 *               rt_sem_take(RT_WAITING_FOREVER). RT-Thread semaphores are
 *               counting; it has no binary form. A valid harness run never
 *               gives a semaphore twice without a take in between
 *               (irq_latency counts any such event bad), so counting and
 *               binary behave the same on every measured path.
 *   from ISR    isr_enter = rt_interrupt_enter, rt_sem_release (in an ISR the
 *               scheduler only pends PendSV), isr_exit = rt_interrupt_leave;
 *               the switch happens on exit
 *   queue       rt_mq_init (one 4-byte message) / rt_mq_send_wait
 *               (blocks while full) / rt_mq_recv
 *   mutex       rt_mutex_init / rt_mutex_take / rt_mutex_release
 *               (priority inheritance built in)
 *   yield       rt_thread_yield
 *   critical    rt_hw_interrupt_disable / rt_hw_interrupt_enable (PRIMASK,
 *               nesting through the returned level)
 *   slicing     every thread's time slice is 1 tick
 *   hooks       rt_thread_idle_sethook (RT_USING_IDLE_HOOK); the tick hook
 *               sits in the SysTick handler, which belongs to the board
 *               support package in RT-Thread and is written here
 *
 * RT-Thread's context_gcc.S defines its own HardFault_Handler; port.cmake
 * renames it so the board's fault reporter keeps the vector. */
#include <rthw.h>
#include <rtthread.h>

#include "cm4_regs.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"

/* Neutral 1..8 -> RT-Thread 10 - p = 9..2 (0 is the most urgent); idle is
 * RT_THREAD_PRIORITY_MAX - 1 = 31. */
#define RB_RT_PRIO(p) ((rt_uint8_t)(10 - (p)))

static struct rt_thread rb_rt_thread[RBP_MAX_TASKS];
static struct rt_semaphore rb_rt_sem[RBP_MAX_SEMS];
static struct rt_messagequeue rb_rt_queue[RBP_MAX_QUEUES];
/* One message: the kernel's per-message header (a pointer) + 4 bytes. */
static rt_uint32_t rb_rt_queue_pool[RBP_MAX_QUEUES][2];
static struct rt_mutex rb_rt_mutex[RBP_MAX_MUTEXES];

/* The BSP's SysTick handler, as RT-Thread's board templates write it. */
void SysTick_Handler(void) {
  rt_interrupt_enter();
  rb_tick_hook();
  rt_tick_increase();
  rt_interrupt_leave();
}

/* ---- Port operations ---------------------------------------------------- */

#ifdef RT_DEBUG
/* RB_CHECKS=on: a failed RT_ASSERT (or context check) stops the firmware
 * with a fault line instead of RT-Thread's silent spin (no console here). */
static void rb_rt_assert_failed(const char* ex, const char* func, rt_size_t line) {
  (void)ex;
  (void)func;
  (void)line;
  rb_fatal("RT_ASSERT");
}
#endif

/* The system heap's arena (RBP_HAS_HEAP). */
static uint64_t rb_rt_arena[RB_HEAP_BYTES / sizeof(uint64_t)];

static int rb_rt_init(void) {
  /* rtthread_startup() without the board, banner and main thread: the
   * harness is the application. Interrupts stay masked until the first
   * thread runs, as there. */
  rt_hw_interrupt_disable();
#ifdef RT_DEBUG
  rt_assert_set_hook(rb_rt_assert_failed);
#endif
  rt_system_heap_init(rb_rt_arena, (uint8_t*)rb_rt_arena + sizeof rb_rt_arena);
  rt_system_timer_init();
  rt_system_scheduler_init();
  rt_system_timer_thread_init(); /* empty: RT_USING_TIMER_SOFT is off */
  rt_thread_idle_init();
  return rt_thread_idle_sethook(rb_idle_hook) == RT_EOK ? RBP_OK : RBP_ERR;
}

#if defined(RB_RT_CORTEX_M33)
/* libcpu/arm/cortex-m33/cpuport.c's rt_hw_stack_init, renamed (port.cmake):
 * it builds the new thread's frame { tz, EXC_RETURN, PSPLIM, CONTROL, r4-r11,
 * exception frame } with EXC_RETURN 0xFFFFFFBC, a return to Non-secure
 * state. The core runs Secure only (qemu-mps2-an505): the thread's first
 * PendSV return needs 0xFFFFFFFD (Secure, thread mode, PSP, basic frame),
 * the full RT-Thread's value with ARCH_ARM_CORTEX_SECURE. Nothing else of
 * the frame changes. */
rt_uint8_t* rb_rt_nano_stack_init_nonsecure(void* tentry, void* parameter, rt_uint8_t* stack_addr,
                                            void* texit);
rt_uint8_t* rt_hw_stack_init(void* tentry, void* parameter, rt_uint8_t* stack_addr, void* texit);
rt_uint8_t* rt_hw_stack_init(void* tentry, void* parameter, rt_uint8_t* stack_addr, void* texit) {
  rt_uint8_t* sp = rb_rt_nano_stack_init_nonsecure(tentry, parameter, stack_addr, texit);
  ((rt_uint32_t*)sp)[1] = 0xFFFFFFFDu;
  return sp;
}
#endif

static int rb_rt_task_create(int id, const char* name, rbp_entry_fn entry, void* arg, int prio,
                             uint32_t* stack, uint32_t stack_words) {
  if (id < 0 || id >= RBP_MAX_TASKS || prio < RBP_PRIO_MIN || prio > RBP_PRIO_MAX) {
    return RBP_ERR;
  }
  /* rt_thread_init fills the whole stack with '#', erasing the pattern the
   * harness wrote to find the high-water mark (END stack_min_free_words).
   * Put the harness' fill word back below the initial frame. Creation time
   * only; no measured path changes. */
  const uint32_t fill = stack[0];
  /* Time slice: one tick. */
  if (rt_thread_init(&rb_rt_thread[id], name, entry, arg, stack, stack_words * sizeof(uint32_t),
                     RB_RT_PRIO(prio), 1) != RT_EOK) {
    return RBP_ERR;
  }
  for (uint32_t* w = stack; w < (uint32_t*)rb_rt_thread[id].sp; w++) {
    *w = fill;
  }
  return rt_thread_startup(&rb_rt_thread[id]) == RT_EOK ? RBP_OK : RBP_ERR;
}

static void rb_rt_start(void) {
  /* The tick, as the Nano board templates program it (SysTick_Config); its
   * priority (lowest, with PendSV) is set by rt_hw_context_switch_to. */
  rb_cm_systick_start(RB_CORE_HZ / RT_TICK_PER_SECOND);
  rt_system_scheduler_start();
}

static int rb_rt_sem_create(int id) {
  if (id < 0 || id >= RBP_MAX_SEMS) {
    return RBP_ERR;
  }
  return rt_sem_init(&rb_rt_sem[id], "rb", 0, RT_IPC_FLAG_PRIO) == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_sem_give(int id) {
  return rt_sem_release(&rb_rt_sem[id]) == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_sem_take(int id) {
  return rt_sem_take(&rb_rt_sem[id], RT_WAITING_FOREVER) == RT_EOK ? RBP_OK : RBP_ERR;
}

static void rb_rt_isr_enter(void) {
  rt_interrupt_enter();
}

static void rb_rt_isr_exit(void) {
  rt_interrupt_leave();
}

static int rb_rt_queue_create(int id) {
  if (id < 0 || id >= RBP_MAX_QUEUES) {
    return RBP_ERR;
  }
  rt_err_t rc = rt_mq_init(&rb_rt_queue[id], "rb", rb_rt_queue_pool[id], sizeof(uint32_t),
                           sizeof rb_rt_queue_pool[id], RT_IPC_FLAG_PRIO);
  return rc == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_queue_send(int id, uint32_t msg) {
  rt_err_t rc = rt_mq_send_wait(&rb_rt_queue[id], &msg, sizeof msg, RT_WAITING_FOREVER);
  return rc == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_queue_receive(int id, uint32_t* msg) {
  rt_err_t rc = rt_mq_recv(&rb_rt_queue[id], msg, sizeof *msg, RT_WAITING_FOREVER);
  return rc == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_mutex_create(int id) {
  if (id < 0 || id >= RBP_MAX_MUTEXES) {
    return RBP_ERR;
  }
  return rt_mutex_init(&rb_rt_mutex[id], "rb", RT_IPC_FLAG_PRIO) == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_mutex_lock(int id) {
  return rt_mutex_take(&rb_rt_mutex[id], RT_WAITING_FOREVER) == RT_EOK ? RBP_OK : RBP_ERR;
}

static int rb_rt_mutex_unlock(int id) {
  return rt_mutex_release(&rb_rt_mutex[id]) == RT_EOK ? RBP_OK : RBP_ERR;
}

static void rb_rt_yield(void) {
  (void)rt_thread_yield();
}

static uint32_t rb_rt_critical_enter(void) {
  return (uint32_t)rt_hw_interrupt_disable();
}

static void rb_rt_critical_exit(uint32_t state) {
  rt_hw_interrupt_enable((rt_base_t)state);
}

static void rb_rt_delay(uint32_t ticks) {
  (void)rt_thread_delay((rt_tick_t)ticks);
}

static uint32_t rb_rt_tick_count(void) {
  return (uint32_t)rt_tick_get();
}

/* CONFIG checks= and lookup=, read from the kernel's configuration as
 * compiled (rtconfig.h follows RB_CFG_CHECKS). */
#ifdef RT_DEBUG
#define RB_PORT_CHECKS "on"
#else
#define RB_PORT_CHECKS "off"
#endif
#ifdef RT_USING_CPU_FFS
#define RB_PORT_LOOKUP "clz" /* libcpu/arm/<core>/cpuport.c: __rt_ffs */
#else
#define RB_PORT_LOOKUP "generic" /* src/kservice.c: __lowest_bit_bitmap */
#endif

/* Named arrays, not literals: the linker merges identical literals across
 * objects, which would blur the footprint's split by object. */
static const char rb_port_checks[] = RB_PORT_CHECKS;
static const char rb_port_lookup[] = RB_PORT_LOOKUP;

/* ---- Heap (RBP_HAS_HEAP): the system heap, RT-Thread's small-memory
 * allocator (mem.c, RT_USING_SMALL_MEM), on rb_rt_arena ------------------------
 * Nano keeps RT_ALIGN_SIZE 4, so rt_malloc's blocks are only 4-aligned (its
 * 12-byte header); the port asks for 8 through the kernel's own
 * rt_malloc_align / rt_free_align (kservice.c: rt_malloc of size + 8, the
 * original pointer kept in the word before the aligned block).
 * Free bytes: rt_memory_info's total - used (used counts each block's header).
 * Largest: RT-Thread has no call for it and keeps its heap private, so the
 * port probes: the largest request rt_malloc serves, by bisection with
 * rt_malloc/rt_free (a first-fit heap returns to the same state after an
 * allocation and its free), outside any window. */
static void* rb_rt_heap_alloc(uint32_t bytes) {
  return rt_malloc_align((rt_size_t)bytes, 8u);
}

static int rb_rt_heap_free(void* block) {
  rt_free_align(block);
  return RBP_OK;
}

/* The probe asks rt_malloc itself (the request a caller of the kernel's
 * allocator could make), as the full RT-Thread's port does. */
static void* rb_rt_heap_probe_alloc(uint32_t bytes) {
  return rt_malloc((rt_size_t)bytes);
}

static void rb_rt_heap_release(void* block) {
  rt_free(block);
}

static int rb_rt_heap_stats(struct rbp_heap_stats* s) {
  rt_uint32_t total = 0, used = 0, max_used = 0;
  rt_memory_info(&total, &used, &max_used);
  s->arena_bytes = (uint32_t)sizeof rb_rt_arena;
  s->free_bytes = (uint32_t)(total - used);
  s->largest_free = rbp_largest_request(s->free_bytes, rb_rt_heap_probe_alloc, rb_rt_heap_release);
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "rtthread_nano",
    .caps = RBP_HAS_TASKS | RBP_HAS_PREEMPTION | RBP_HAS_SEM_FROM_ISR | RBP_HAS_QUEUE |
            RBP_HAS_MUTEX | RBP_HAS_MUTEX_PI | RBP_HAS_TIME_SLICE | RBP_HAS_TICK_HOOK |
            RBP_HAS_IDLE_HOOK | RBP_HAS_HEAP,
    .init = rb_rt_init,
    .task_create = rb_rt_task_create,
    .start = rb_rt_start,
    .sem_create = rb_rt_sem_create,
    .sem_give = rb_rt_sem_give,
    .sem_take = rb_rt_sem_take,
    .sem_give_from_isr = rb_rt_sem_give,
    .isr_enter = rb_rt_isr_enter,
    .isr_exit = rb_rt_isr_exit,
    .queue_create = rb_rt_queue_create,
    .queue_send = rb_rt_queue_send,
    .queue_receive = rb_rt_queue_receive,
    .mutex_create = rb_rt_mutex_create,
    .mutex_lock = rb_rt_mutex_lock,
    .mutex_unlock = rb_rt_mutex_unlock,
    .yield = rb_rt_yield,
    .critical_enter = rb_rt_critical_enter,
    .critical_exit = rb_rt_critical_exit,
    .delay = rb_rt_delay,
    .tick_count = rb_rt_tick_count,
    .checks = rb_port_checks,
    .lookup = rb_port_lookup,
    /* RBP_HAS_HEAP */
    .heap_alloc = rb_rt_heap_alloc,
    .heap_free = rb_rt_heap_free,
    .heap_stats = rb_rt_heap_stats,
};
