/* rtosbench port for RT-Thread 5 (the full kernel: src/ with the single-core
 * scheduler, libcpu/arm/cortex-m4 as shipped (cortex-m3 or cortex-m33 on
 * those cores, port.cmake), components/finsh with MSH).
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
 *   queue       rt_mq_init (room for exactly one 4-byte message) /
 *               rt_mq_send_wait (blocks while full) / rt_mq_recv
 *   mutex       rt_mutex_init / rt_mutex_take / rt_mutex_release
 *               (priority inheritance built in)
 *   yield       rt_thread_yield
 *   critical    rt_hw_interrupt_disable / rt_hw_interrupt_enable (PRIMASK,
 *               nesting through the returned level)
 *   slicing     every thread's time slice is 1 tick
 *   hooks       rt_thread_idle_sethook (RT_USING_IDLE_HOOK); the tick hook
 *               sits in the SysTick handler, which belongs to the board
 *               support package in RT-Thread and is written here
 *   console     the BSP's part of RT-Thread's device-less console:
 *               rt_hw_console_output writes to the harness' UART;
 *               rt_hw_console_getchar, the shell's only input, blocks on a
 *               semaphore that the UART's receive interrupt releases for
 *               each byte it queues (no polling). The shell thread (tshell,
 *               priority 20: below every harness thread, above idle) runs
 *               once, the first time every harness thread is blocked (the
 *               quiesce before wake_latency, outside any measurement),
 *               prints its prompt and then sleeps on that semaphore for the
 *               whole run: the host sends nothing after the start line.
 *
 * RT-Thread's context_gcc.S defines its own HardFault_Handler; port.cmake
 * renames it so the board's fault reporter keeps the vector. */
#include <rthw.h>
#include <rtthread.h>
#include <shell.h>

#include "cm4_regs.h"
#include "rb_board.h"
#include "rb_board_hw.h"
#include "rb_build_config.h"
#include "rb_port.h"
#include "stm32f4_regs.h"

/* Neutral 1..8 -> RT-Thread 10 - p = 9..2 (0 is the most urgent); tshell is
 * FINSH_THREAD_PRIORITY (20), idle RT_THREAD_PRIORITY_MAX - 1 = 31. */
#define RB_RT_PRIO(p) ((rt_uint8_t)(10 - (p)))
_Static_assert(FINSH_THREAD_PRIORITY > 10 - RBP_PRIO_MIN &&
                   FINSH_THREAD_PRIORITY < RT_THREAD_PRIORITY_MAX - 1,
               "the shell thread sits between the harness threads and idle");

static struct rt_thread rb_rt_thread[RBP_MAX_TASKS];
static struct rt_semaphore rb_rt_sem[RBP_MAX_SEMS];
static struct rt_messagequeue rb_rt_queue[RBP_MAX_QUEUES];
/* One message: the kernel's per-message header (a pointer) + the 4-byte
 * message rounded up to RT_ALIGN_SIZE (ipc.c, rt_mq_init). */
#define RB_RT_MQ_POOL (sizeof(void*) + RT_ALIGN(sizeof(uint32_t), RT_ALIGN_SIZE))
static rt_uint8_t rb_rt_queue_pool[RBP_MAX_QUEUES][RB_RT_MQ_POOL] __attribute__((aligned(8)));
static struct rt_mutex rb_rt_mutex[RBP_MAX_MUTEXES];

/* The BSP's SysTick handler, as RT-Thread's board templates write it. */
void SysTick_Handler(void) {
  rt_interrupt_enter();
  rb_tick_hook();
  rt_tick_increase();
  rt_interrupt_leave();
}

/* ---- Console (the BSP's part of RT-Thread's device-less console) ------------ */

/* Received bytes, queued by the receive interrupt for the shell. One
 * producer (the interrupt), one consumer (tshell); the semaphore counts the
 * queued bytes. */
#define RB_RT_RX_SIZE 16u
static volatile char rb_rt_rx[RB_RT_RX_SIZE];
static volatile uint8_t rb_rt_rx_head;
static volatile uint8_t rb_rt_rx_tail;
static struct rt_semaphore rb_rt_rx_sem;
#if defined(RB_RT_CONSOLE_CMSDK)
/* CMSDK APB UART (qemu-mps2-an505's UART0): CTRL bit 3 enables the receive
 * interrupt; it stays raised until INTCLEAR's bit 1 is written (Arm's CMSDK
 * documentation; QEMU hw/char/cmsdk-apb-uart.c alike). */
#define RB_RT_CMSDK_CTRL(b) RB_REG32((b) + 0x08u)
#define RB_RT_CMSDK_INTCLEAR(b) RB_REG32((b) + 0x0Cu)
#define RB_RT_CMSDK_CTRL_RXINTEN (1u << 3)
#define RB_RT_CMSDK_INT_RX (1u << 1)
static void rb_rt_console_rx_enable(void) {
  RB_RT_CMSDK_CTRL(RB_RT_CONSOLE_USART) |= RB_RT_CMSDK_CTRL_RXINTEN;
}
static void rb_rt_console_rx_ack(void) {
  RB_RT_CMSDK_INTCLEAR(RB_RT_CONSOLE_USART) = RB_RT_CMSDK_INT_RX;
}
#else
#define RB_RT_USART_CR1_RXNEIE (1u << 5) /* RM0090 USART_CR1: RXNE interrupt enable */
static void rb_rt_console_rx_enable(void) {
  USART_CR1(RB_RT_CONSOLE_USART) |= RB_RT_USART_CR1_RXNEIE;
}
/* Reading the data register (rb_board_getc) clears RXNE. */
static void rb_rt_console_rx_ack(void) {}
#endif

void RB_RT_CONSOLE_IRQHandler(void);
void RB_RT_CONSOLE_IRQHandler(void) {
  rt_interrupt_enter();
  int c;
  /* rb_board_getc reads the data register (on an STM32 USART that clears the
   * interrupt) and clears an overrun; a CMSDK UART's is cleared first, so a
   * byte arriving after the last read raises it again. */
  rb_rt_console_rx_ack();
  while ((c = rb_board_getc()) >= 0) {
    if ((uint8_t)(rb_rt_rx_head - rb_rt_rx_tail) < RB_RT_RX_SIZE) {
      rb_rt_rx[rb_rt_rx_head % RB_RT_RX_SIZE] = (char)c;
      rb_rt_rx_head++;
      rt_sem_release(&rb_rt_rx_sem);
    }
  }
  rt_interrupt_leave();
}

/* Whether the console's last output left a line open. */
static volatile int rb_rt_line_open;

/* The shell's only input: one byte from the receive queue, sleeping on the
 * semaphore while it is empty. The harness writes its records to the same
 * UART, and a record must start a line (docs/protocol.md, section 1): a line
 * the shell leaves open when it goes to sleep (its prompt "msh >") is ended
 * first, so it never prefixes the next record. */
char rt_hw_console_getchar(void);
char rt_hw_console_getchar(void) {
  if (rb_rt_line_open && rb_rt_rx_head == rb_rt_rx_tail) {
    rb_board_write("\n", 1u);
    rb_rt_line_open = 0;
  }
  while (rt_sem_take(&rb_rt_rx_sem, RT_WAITING_FOREVER) != RT_EOK) {
  }
  const char c = rb_rt_rx[rb_rt_rx_tail % RB_RT_RX_SIZE];
  rb_rt_rx_tail++;
  return c;
}

/* rt_kprintf's output, as is. */
void rt_hw_console_output(const char* str) {
  uint32_t n = 0;
  while (str[n] != '\0') {
    n++;
  }
  if (n > 0u) {
    rb_board_write(str, n);
    rb_rt_line_open = str[n - 1u] != '\n';
  }
}

/* ---- Port operations ---------------------------------------------------- */

#if defined(RT_DEBUG) || defined(RT_USING_DEBUG)
/* RB_CHECKS=on: a failed RT_ASSERT (or context check) stops the firmware
 * with a fault line instead of RT-Thread's spin. */
static void rb_rt_assert_failed(const char* ex, const char* func, rt_size_t line) {
  (void)ex;
  (void)func;
  (void)line;
  rb_fatal("RT_ASSERT");
}
#endif

/* The system heap's arena (RBP_HAS_HEAP): RB_HEAP_BYTES for the heap test plus
 * what the shell takes from it at boot (with RT_USING_HEAP, finsh_system_init
 * allocates its state, about 520 bytes with 5 history lines of 80, and creates
 * its thread with a FINSH_THREAD_STACK_SIZE stack on the heap): the stack plus
 * 2048 bytes, 4096 with 512-word stacks as before, less on a small RAM. */
#define RB_RT_SHELL_HEAP (FINSH_THREAD_STACK_SIZE + 2048u)
static uint64_t rb_rt_arena[(RB_HEAP_BYTES + RB_RT_SHELL_HEAP) / sizeof(uint64_t)];

static int rb_rt_init(void) {
  /* rtthread_startup() without the board, banner and main thread: the
   * harness is the application. Interrupts stay masked until the first
   * thread runs, as there. The version banner (rt_show_version) is left out:
   * it prints the build's __DATE__ and __TIME__, which would make every
   * build of the same sources a different image. */
  rt_hw_interrupt_disable();
#if defined(RT_DEBUG) || defined(RT_USING_DEBUG)
  rt_assert_set_hook(rb_rt_assert_failed);
#endif
  rt_system_heap_init(rb_rt_arena, (uint8_t*)rb_rt_arena + sizeof rb_rt_arena);
  rt_system_timer_init();
  rt_system_scheduler_init();
  rt_system_timer_thread_init(); /* empty: RT_USING_TIMER_SOFT is off */
  rt_thread_idle_init();
  if (rt_thread_idle_sethook(rb_idle_hook) != RT_EOK) {
    return RBP_ERR;
  }
  /* The shell: what rt_components_init() runs for it (INIT_APP_EXPORT). */
  if (rt_sem_init(&rb_rt_rx_sem, "rbrx", 0, RT_IPC_FLAG_PRIO) != RT_EOK) {
    return RBP_ERR;
  }
  return finsh_system_init() == 0 ? RBP_OK : RBP_ERR;
}

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
  /* The console's receive interrupt, as RT-Thread's STM32 serial driver
   * enables it (RXNEIE; a CMSDK UART's RXINTEN), at the lowest priority (that
   * of the tick and PendSV) so it never delays the test timer. It fires only
   * when a byte arrives. */
  NVIC_IPR(RB_RT_CONSOLE_IRQN) = RB_PRIO_BYTE(RB_TICK_PRIO);
  rb_rt_console_rx_enable();
  NVIC_ISER(RB_RT_CONSOLE_IRQN) = NVIC_BIT(RB_RT_CONSOLE_IRQN);
  /* The tick, as the board templates program it (SysTick_Config); its
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
  if (rc != RT_EOK || rb_rt_queue[id].max_msgs != 1u) {
    return RBP_ERR;
  }
  return RBP_OK;
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
 * compiled (rtconfig.h follows RB_CFG_CHECKS; RT_USING_DEBUG is 5.0.2's
 * name of RT_DEBUG). */
#if defined(RT_DEBUG) || defined(RT_USING_DEBUG)
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
 * The arena also holds the shell's state and thread (RB_RT_SHELL_HEAP), as a
 * BSP with RT_USING_HEAP has them. RT_ALIGN_SIZE 8: blocks are 8-aligned.
 * rt_malloc/rt_free take the heap's lock (_heap_lock: a mutex in a thread).
 * Free bytes: rt_memory_info's total - used (used counts each block's header).
 * Largest: RT-Thread has no call for it and keeps its heap private, so the
 * port probes: the largest request rt_malloc serves, by bisection with
 * rt_malloc/rt_free (a first-fit heap returns to the same state after an
 * allocation and its free), outside any window. */
static void* rb_rt_heap_alloc(uint32_t bytes) {
  return rt_malloc((rt_size_t)bytes);
}

static int rb_rt_heap_free(void* block) {
  rt_free(block);
  return RBP_OK;
}

static void rb_rt_heap_release(void* block) {
  rt_free(block);
}

static int rb_rt_heap_stats(struct rbp_heap_stats* s) {
  rt_size_t total = 0, used = 0, max_used = 0;
  rt_memory_info(&total, &used, &max_used);
  s->arena_bytes = (uint32_t)sizeof rb_rt_arena;
  s->free_bytes = (uint32_t)(total - used);
  s->largest_free = rbp_largest_request(s->free_bytes, rb_rt_heap_alloc, rb_rt_heap_release);
  return RBP_OK;
}

const struct rbp_ops rbp_port = {
    .kernel = "rtthread",
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
