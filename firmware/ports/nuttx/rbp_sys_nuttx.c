/* The NuttX layer of the POSIX port (ports/posix/rbp_posix_sys.h).
 *
 *   interrupts  NuttX owns the vector table: every board interrupt the
 *               harness uses (RB_BOARD_IRQS, rb_board_hw.h) is attached with
 *               irq_attach; NuttX's dispatcher (arm_doirq) switches to a task
 *               the handler readied on interrupt exit. SysTick (NuttX's
 *               system timer) and PendSV (unused by NuttX's ARMv7-M port) at
 *               RB_TICK_PRIO; the board put its timers at RB_IRQ_PRIO, which
 *               ports/nuttx/port.cmake makes the same level (NuttX does not
 *               nest the interrupts that call it). NuttX masks them in its
 *               critical section (BASEPRI at NVIC_SYSH_DISABLE_PRIORITY). The
 *               tick's period restarts in rbp_sys_init (after the start
 *               handshake), so the tick phase does not depend on the host.
 *   critical    enter_critical_section / leave_critical_section
 *   semaphores  sem_setprotocol(SEM_PRIO_NONE): NuttX documents it for every
 *               semaphore used for signalling when priority inheritance is
 *               configured (include/semaphore.h)
 *   tick count  clock_systime_ticks
 *   tick hook   board_timerhook (CONFIG_SYSTEMTICK_HOOK), called by
 *               nxsched_process_timer on every tick
 *   idle hook   up_idle (CONFIG_ARCH_IDLE_CUSTOM replaces the chip's, which
 *               sleeps in WFI): NuttX's idle loop calls it on every pass; it
 *               never sleeps
 *   heap        NuttX's mm allocator (what malloc runs: mm_malloc on the user
 *               heap) on a heap of its own over a static RB_HEAP_BYTES arena
 *               (mm_initialize): malloc's heap is all free RAM and holds the
 *               kernel's own allocations. mm_malloc aligns to 8 (MM_ALIGN).
 *               mm_mallinfo walks the heap: fordblks (free chunks, headers
 *               included) and mxordblk (the largest free chunk)
 *   clocks      on QEMU (CONFIG_ARCH_BOARD_STM32_CUSTOM_CLOCKCONFIG) the
 *               clock set-up is this empty stm32_board_clockconfig: QEMU
 *               does not model RCC, and the standard set-up waits on its
 *               ready bits forever */
#include <malloc.h>
#include <nuttx/board.h>
#include <nuttx/clock.h>
#include <nuttx/config.h>
#include <nuttx/irq.h>
#include <nuttx/mm/mm.h>
#include <nuttx/tls.h>
#include <semaphore.h>
#include <stdint.h>

#include "cm4_regs.h"
#include "rb_board.h"
#include "rb_build_config.h"
#include "rb_port.h"
#include "rbp_posix_sys.h"

/* NuttX writes its TLS block at the bottom of the stack a thread is given
 * (tls_init_info -> up_stack_frame, aligned up to 8 bytes): the harness'
 * high-water count starts above it. */
const uint32_t rbp_stack_reserved_words = ((sizeof(struct tls_info_s) + 7u) & ~7u) / 4u;

#define RB_NX_IRQ(nvic) (16 + (int)(nvic)) /* NuttX numbers the 16 exceptions first */

static int rb_nx_dispatch(int irq, void* context, void* arg) {
  (void)irq;
  (void)context;
  ((void (*)(void))arg)();
  return 0;
}

/* The heap test's heap (RBP_HAS_HEAP): created in rbp_sys_init. */
static uint64_t rb_nx_arena[RB_HEAP_BYTES / sizeof(uint64_t)];
static struct mm_heap_s* rb_nx_heap;

int rbp_sys_init(void) {
  int rc = 0;
  rb_nx_heap = mm_initialize("rb_heap", rb_nx_arena, sizeof rb_nx_arena);
  if (rb_nx_heap == NULL) {
    return -1;
  }
#define RB_NX_ATTACH(nvic, handler)                                                        \
  {                                                                                        \
    extern void handler(void);                                                             \
    rc = rc ? rc : irq_attach(RB_NX_IRQ(nvic), rb_nx_dispatch, (void*)(uintptr_t)handler); \
  }
  RB_BOARD_IRQS(RB_NX_ATTACH)
#undef RB_NX_ATTACH
  rb_cm_tick_prio_set();
  /* NuttX's tick has run since boot, while the harness waited for the host's
   * START: restart its period here, so every run (under QEMU: every
   * byte-identical rerun) sees the same tick phase, as with the kernels whose
   * tick starts in start(). */
  SYST_CVR = 0;
  return rc;
}

int rbp_sys_sem_signalling(sem_t* s) {
  return sem_setprotocol(s, SEM_PRIO_NONE);
}

uint32_t rbp_sys_critical_enter(void) {
  return (uint32_t)enter_critical_section();
}

void rbp_sys_critical_exit(uint32_t state) {
  leave_critical_section((irqstate_t)state);
}

uint32_t rbp_sys_tick_count(void) {
  return (uint32_t)clock_systime_ticks();
}

void board_timerhook(void) {
  rb_tick_hook();
}

void up_idle(void) {
  rb_idle_hook();
}

#ifdef RB_NX_HEAP_TO_RAM_END
/* A board smaller than its NuttX chip (board.cmake RB_BOARD_NUTTX_RAM_SIZE:
 * qemu-netduino2, 20 KB of the STM32F205's 128): NuttX 12.4's F2/F4 heap
 * runs from the idle stack's top to the chip's end of SRAM, 0x20020000
 * (arch/arm/src/stm32/stm32_allocateheap.c, SRAM1_END), whatever
 * CONFIG_RAM_SIZE says. This up_allocate_heap, linked before NuttX's
 * libraries, replaces that file's (the only symbol NuttX needs from it with
 * CONFIG_MM_REGIONS=1 in a flat build) and ends the heap at CONFIG_RAM_END,
 * the rule NuttX applies to its STM32F1 parts. */
extern const uintptr_t g_idle_topstack;
void up_allocate_heap(void** heap_start, size_t* heap_size);
void up_allocate_heap(void** heap_start, size_t* heap_size) {
  *heap_start = (void*)g_idle_topstack;
  *heap_size = (size_t)(CONFIG_RAM_END - g_idle_topstack);
}
#endif

#ifdef CONFIG_ARCH_BOARD_STM32_CUSTOM_CLOCKCONFIG
void stm32_board_clockconfig(void);
void stm32_board_clockconfig(void) {}
#endif

/* CONFIG kernel=, checks=, lookup=. checks: NuttX's DEBUGASSERT/ASSERT
 * follow CONFIG_DEBUG_ASSERTIONS (and CONFIG_DEBUG_FEATURES), but the libc
 * entry points the POSIX port calls check their argument unconditionally
 * (nuttx-12.4.0 libs/libc/semaphore/sem_post.c:70 and sem_wait.c:62,
 * `if (sem == NULL)` then EINVAL): off is partial, as for TencentOS; lookup: NuttX keeps its
 * ready-to-run list sorted by priority (sched/sched/sched_addreadytorun.c), so the highest ready
 * task is the list head; there is no priority bitmap to search ("generic", as ChibiOS). */
#ifdef CONFIG_DEBUG_ASSERTIONS
const char rbp_sys_checks[] = "on";
#else
const char rbp_sys_checks[] = "partial";
#endif
const char rbp_sys_kernel[] = "nuttx";
const char rbp_sys_lookup[] = "generic";

/* ---- Heap (RBP_HAS_HEAP) --------------------------------------------------- */

void* rbp_sys_heap_alloc(uint32_t bytes) {
  return mm_malloc(rb_nx_heap, (size_t)bytes);
}

int rbp_sys_heap_free(void* block) {
  mm_free(rb_nx_heap, block);
  return RBP_OK;
}

int rbp_sys_heap_stats(struct rbp_heap_stats* s) {
  struct mallinfo mi = mm_mallinfo(rb_nx_heap);
  s->arena_bytes = (uint32_t)mi.arena;
  s->free_bytes = (uint32_t)mi.fordblks;
  s->largest_free = (uint32_t)mi.mxordblk;
  return RBP_OK;
}
