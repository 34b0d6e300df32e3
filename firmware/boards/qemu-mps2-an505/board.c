/* QEMU mps2-an505 board layer (facts: docs/firmware.md, "qemu-mps2-an505").
 * No clock tree is modelled (every device runs from the fixed 20 MHz
 * MAINCLK), so no clock is configured and no clock or reset fact is
 * claimed: they are n/a. UART0 (CMSDK APB UART) is QEMU's first serial
 * port; it sends and receives only with its TX and RX enables set. Timers
 * (CMSDK APB timer and dual timer, hw/timer/cmsdk-apb-*.c) count down at
 * 20 MHz; the ruler is the dual timer's first counter (rb_board_hw.h). */
#include "cm4_regs.h"
#include "rb_board.h"
#include "rb_port.h"

/* CMSDK APB UART */
#define UART_DATA RB_REG32(AN505_UART0_BASE + 0x00u)
#define UART_STATE RB_REG32(AN505_UART0_BASE + 0x04u)
#define UART_CTRL RB_REG32(AN505_UART0_BASE + 0x08u)
#define UART_BAUDDIV RB_REG32(AN505_UART0_BASE + 0x10u)
#define UART_STATE_TXFULL (1u << 0)
#define UART_STATE_RXFULL (1u << 1)
#define UART_STATE_RXOVR (1u << 3)
#define UART_CTRL_TXEN (1u << 0)
#define UART_CTRL_RXEN (1u << 1)

/* CMSDK APB timer: a 32-bit down-counter reloaded from RELOAD. */
#define TMR_CTRL(b) RB_REG32((b) + 0x00u)
#define TMR_VALUE(b) RB_REG32((b) + 0x04u)
#define TMR_RELOAD(b) RB_REG32((b) + 0x08u)
#define TMR_INTCLEAR(b) RB_REG32((b) + 0x0Cu)
#define TMR_CTRL_EN (1u << 0)
#define TMR_CTRL_IRQEN (1u << 3)

/* CMSDK APB dual timer: two SP804-like down-counters, one interrupt. */
#define DT1 (AN505_DUALTIMER_BASE + 0x00u)
#define DT2 (AN505_DUALTIMER_BASE + 0x20u)
#define DT_LOAD(b) RB_REG32((b) + 0x00u)
#define DT_CONTROL(b) RB_REG32((b) + 0x08u)
#define DT_INTCLR(b) RB_REG32((b) + 0x0Cu)
#define DT_CONTROL_SIZE32 (1u << 1)
#define DT_CONTROL_INTEN (1u << 5)
#define DT_CONTROL_PERIODIC (1u << 6)
#define DT_CONTROL_ENABLE (1u << 7)

#define TIMER0_IRQN 3u
#define TIMER1_IRQN 4u
#define DUALTIMER_IRQN 5u

/* Event times come from the timers themselves: a timer's limit is its
 * period less one; QEMU's CMSDK timers interrupt when the count reaches 0 and
 * wrap to the limit one tick later (measured: the count read in the handler
 * is 0), so a handler that reads the ruler (`now`) and then the timer's
 * count `v` places the event (period - v) mod period ticks before `now`.
 * The timer is another counter of the same 20 MHz clock with its own phase,
 * so the event time is at most one tick early and never later than the
 * ruler's reading of it. A handler a whole period late would alias by a
 * period: the harness' pairing counts of late and missed events catch that.
 * Re-arming a running timer by a store of its count is not used: in QEMU
 * 7.2 the first interrupt after such a store came a period late
 * (sleep_wake: 540 ticks in 95% of the samples). */
#define RB_EV_LIMIT (RB_EVENT_PERIOD - 1u)
#define RB_ZLI_LIMIT (RB_ZLI_PERIOD - 1u)

void rb_board_console_init(void) {
  UART_BAUDDIV = RB_CORE_HZ / RB_UART_BAUD; /* QEMU ignores the rate */
  UART_CTRL = UART_CTRL_TXEN | UART_CTRL_RXEN;
}

int rb_board_getc(void) {
  const uint32_t state = UART_STATE;
  if (state & UART_STATE_RXOVR) {
    UART_STATE = UART_STATE_RXOVR;
  }
  return (state & UART_STATE_RXFULL) ? (int)(UART_DATA & 0xFFu) : -1;
}

uint32_t rb_board_idcode(void) {
  return 0; /* no DBGMCU */
}

/* The ticks the ruler reads across 6400 instructions (a loop of 3200
 * `subs; bne` passes): 128 << shift under -icount shift=N, plus the reads'
 * few instructions. */
#define RB_ICOUNT_PROBE_INSNS 6400u
static uint32_t rb_icount_probe(void) {
  uint32_t n = RB_ICOUNT_PROBE_INSNS / 2u;
  const uint32_t t0 = rb_counter_now();
  __asm volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n)::"cc");
  return rb_counter_now() - t0;
}

void rb_board_init(void) {
  /* The ruler: free-running over all 32 bits, no interrupt. */
  DT_CONTROL(DT1) = 0;
  DT_LOAD(DT1) = 0xFFFFFFFFu;
  DT_CONTROL(DT1) = DT_CONTROL_ENABLE | DT_CONTROL_SIZE32;
  /* Every figure's meaning rests on the -icount shift (rb_board_hw.h): an
   * image run under another one stops here rather than print ticks of
   * another size. Neighbouring shifts differ by a factor of two, so a
   * tolerance of 1/8 tells them apart. */
  {
    const uint32_t want = (RB_ICOUNT_PROBE_INSNS << RB_QEMU_ICOUNT_SHIFT) / 50u;
    const uint32_t got = rb_icount_probe();
    if (got < want - want / 8u || got > want + want / 8u) {
      rb_fatal("board qemu-mps2-an505 needs -icount shift=" RB_AN505_STR(
          RB_QEMU_ICOUNT_SHIFT) ": the ruler's ticks per instruction say QEMU runs another");
    }
  }
  /* Timer 0: the test timer's events. */
  TMR_CTRL(AN505_TIMER0_BASE) = 0;
  TMR_INTCLEAR(AN505_TIMER0_BASE) = 1u;
  NVIC_ICER(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
  NVIC_IPR(TIMER0_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  /* Timer 1: the empty interrupts. */
  TMR_CTRL(AN505_TIMER1_BASE) = 0;
  TMR_INTCLEAR(AN505_TIMER1_BASE) = 1u;
  NVIC_ICER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  NVIC_IPR(TIMER1_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  /* The dual timer's second counter: zero_latency_irq; its level is set by
   * rb_zli_start. */
  DT_CONTROL(DT2) = 0;
  DT_INTCLR(DT2) = 1u;
  NVIC_ICER(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
}

void rb_board_write(const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    while (UART_STATE & UART_STATE_TXFULL) {
    }
    UART_DATA = (uint8_t)s[i];
  }
}

void rb_event_start(void) {
  NVIC_ICER(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
  TMR_CTRL(AN505_TIMER0_BASE) = 0;
  TMR_INTCLEAR(AN505_TIMER0_BASE) = 1u;
  NVIC_ICPR(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
  TMR_RELOAD(AN505_TIMER0_BASE) = RB_EV_LIMIT;
  TMR_VALUE(AN505_TIMER0_BASE) = RB_EV_LIMIT;
  TMR_CTRL(AN505_TIMER0_BASE) = TMR_CTRL_EN | TMR_CTRL_IRQEN;
  NVIC_ISER(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
}

void rb_event_stop(void) {
  TMR_CTRL(AN505_TIMER0_BASE) = 0;
  NVIC_ICER(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
  TMR_INTCLEAR(AN505_TIMER0_BASE) = 1u;
  NVIC_ICPR(TIMER0_IRQN) = NVIC_BIT(TIMER0_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* The timer keeps every event's time (its count, read by the handler). */
void rb_event_resync(void) {}

/* The ticks since the last event of a timer whose count reads `v`. */
static inline uint32_t rb_since_event(uint32_t v, uint32_t period) {
  return (v == 0u || v >= period) ? 0u : period - v;
}

void TIMER0_IRQHandler(void) {
  const uint32_t now = rb_event_now();
  const uint32_t v = TMR_VALUE(AN505_TIMER0_BASE);
  TMR_INTCLEAR(AN505_TIMER0_BASE) = 1u;
  rb_event_irq(now - rb_since_event(v, RB_EVENT_PERIOD), now);
}

void rb_empty_start(void) {
  NVIC_ICER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  TMR_CTRL(AN505_TIMER1_BASE) = 0;
  TMR_INTCLEAR(AN505_TIMER1_BASE) = 1u;
  NVIC_ICPR(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  TMR_RELOAD(AN505_TIMER1_BASE) = RB_EMPTY_PERIOD - 1u;
  TMR_VALUE(AN505_TIMER1_BASE) = RB_EMPTY_PERIOD;
  TMR_CTRL(AN505_TIMER1_BASE) = TMR_CTRL_EN | TMR_CTRL_IRQEN;
  NVIC_ISER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
}

void rb_empty_stop(void) {
  TMR_CTRL(AN505_TIMER1_BASE) = 0;
  NVIC_ICER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  TMR_INTCLEAR(AN505_TIMER1_BASE) = 1u;
  NVIC_ICPR(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* The empty interrupt: acknowledge and count, nothing else. */
volatile uint32_t rb_empty_irqs;

void TIMER1_IRQHandler(void) {
  TMR_INTCLEAR(AN505_TIMER1_BASE) = 1u;
  rb_empty_irqs++;
}

void rb_zli_start(uint32_t level) {
  NVIC_ICER(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
  NVIC_IPR(DUALTIMER_IRQN) = RB_PRIO_BYTE(level);
  DT_CONTROL(DT2) = 0;
  DT_INTCLR(DT2) = 1u;
  NVIC_ICPR(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
  DT_LOAD(DT2) = RB_ZLI_LIMIT; /* the count and the limit */
  DT_CONTROL(DT2) = DT_CONTROL_ENABLE | DT_CONTROL_SIZE32 | DT_CONTROL_PERIODIC | DT_CONTROL_INTEN;
  NVIC_ISER(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
}

void rb_zli_stop(void) {
  DT_CONTROL(DT2) = 0;
  NVIC_ICER(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
  DT_INTCLR(DT2) = 1u;
  NVIC_ICPR(DUALTIMER_IRQN) = NVIC_BIT(DUALTIMER_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* zero_latency_irq's handler: no kernel call. Event times as timer 0's. */
void DUALTIMER_IRQHandler(void) {
  const uint32_t now = rb_zli_now();
  const uint32_t v = RB_REG32(DT2 + 0x04u);
  DT_INTCLR(DT2) = 1u;
  rb_zli_irq(now - rb_since_event(v, RB_ZLI_PERIOD), now);
}

void rb_board_read_facts(struct rb_board_facts* facts) {
  facts->core_measured_hz = 0;
  facts->irq_measured_hz = 0;
  facts->reset_cause = 0;
  facts->has_reset_flags = 0;
  facts->flash_ws = -1;
  facts->icache = -1;
  facts->dcache = -1;
  facts->prefetch = -1;
}

/* Edges (rb_board.h; docs/firmware.md, "Edges"): QEMU 7.2 maps the AN505's
 * four CMSDK AHB GPIO ports (0x40100000, Secure alias 0x50100000) as
 * unimplemented devices behind the AHB PPC: a store there is accepted and
 * ignored. The three channels are the DATAOUT registers of GPIO0, GPIO1 and
 * GPIO2, one store each (board.cmake RB_BOARD_EDGE_PINS emulated). */
#define RB_EDGE_MK RB_REG32(0x50100004u) /* GPIO0 DATAOUT */
#define RB_EDGE_EV RB_REG32(0x50101004u) /* GPIO1 DATAOUT */
#define RB_EDGE_TK RB_REG32(0x50102004u) /* GPIO2 DATAOUT */

#include "rb_edge_stores.h"
