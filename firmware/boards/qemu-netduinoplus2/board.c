/* QEMU netduinoplus2 board layer (facts: docs/firmware.md, "The emulated
 * board"). RCC and the flash interface are not modelled (they read 0), so no
 * clock is configured and no clock or reset fact is claimed: they are n/a.
 * USART1 is QEMU's first serial port: it sends without setup, but receives
 * only with UE and RE set (QEMU's stm32f2xx_usart drops input otherwise). */
#include "rb_board.h"
#include "rb_port.h"
#include "stm32f4_regs.h"

/* TIM3 update events: QEMU (7.2) arms its update timer when ARR is written,
 * and the k-th update then happens exactly k * ARR counts after that store
 * (measured: the counter read just before the store is one count earlier;
 * docs/firmware.md). Clearing CEN stops the events (and the cost of QEMU's
 * timer callbacks outside this test); writing CNT or EGR, or toggling DIER,
 * would stop them for good, so neither is ever done. */
static volatile uint32_t rb_ev_next;
static uint32_t rb_ev_origin;

void rb_board_console_init(void) {
  USART_CR1(USART1_BASE) = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
}

int rb_board_getc(void) {
  return (USART_SR(USART1_BASE) & USART_SR_RXNE) ? (int)(USART_DR(USART1_BASE) & 0xFFu) : -1;
}

uint32_t rb_board_idcode(void) {
  return 0; /* QEMU does not model DBGMCU */
}

void rb_board_init(void) {
  TIM_CR1(TIM3_BASE) = 0;
  TIM_PSC(TIM3_BASE) = 0;
  TIM_DIER(TIM3_BASE) = TIM_DIER_UIE;
  NVIC_ICER(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  NVIC_IPR(TIM3_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  /* TIM4 update: the empty interrupts, with TIM3's rules (armed by the ARR
   * store, stopped by clearing CEN, DIER set once). */
  TIM_CR1(TIM4_BASE) = 0;
  TIM_PSC(TIM4_BASE) = 0;
  TIM_DIER(TIM4_BASE) = TIM_DIER_UIE;
  NVIC_ICER(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
  NVIC_IPR(TIM4_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  /* TIM5 update: zero_latency_irq's events, with TIM3's rules; its level is
   * set by rb_zli_start. */
  TIM_CR1(TIM5_BASE) = 0;
  TIM_PSC(TIM5_BASE) = 0;
  TIM_DIER(TIM5_BASE) = TIM_DIER_UIE;
  NVIC_ICER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
}

void rb_board_write(const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    while (!(USART_SR(USART1_BASE) & USART_SR_TXE)) {
    }
    USART_DR(USART1_BASE) = (uint8_t)s[i];
  }
}

/* The first event after `now` (events are origin + k * period). */
static uint32_t rb_ev_after(uint32_t now) {
  const uint32_t k = (now - rb_ev_origin) / RB_EVENT_PERIOD + 1u;
  return rb_ev_origin + k * RB_EVENT_PERIOD;
}

void rb_event_start(void) {
  NVIC_ICER(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  TIM_SR(TIM3_BASE) = 0;
  NVIC_ICPR(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  TIM_CR1(TIM3_BASE) = TIM_CR1_CEN;
  rb_event_resync();
  NVIC_ISER(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
}

void rb_event_stop(void) {
  TIM_CR1(TIM3_BASE) = 0;
  NVIC_ICER(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  TIM_SR(TIM3_BASE) = 0;
  NVIC_ICPR(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* QEMU 7.2 re-arms an update from the moment its timer callback ran
 * (virtual time then + ARR); a warp of the halted core's virtual time (QEMU
 * issue 2703) can run that callback late, and the updates then step later
 * for good while the computed times do not: every later sample grows by the
 * step (Mbed OS sleep_wake_entry 5, 180, 355, 530 in one run). Re-armed here
 * the next update is RB_EVENT_PERIOD counts after this store, read from the
 * counter, whatever the callback did. rb_event_start arms the first period
 * the same way. */
void rb_event_resync(void) {
  uint32_t before;
  __asm volatile(
      "ldr %0, [%1, #0x24]\n\t"
      "str %2, [%1, #0x2c]\n\t"
      : "=&r"(before)
      : "r"(TIM3_BASE), "r"(RB_EVENT_PERIOD)
      : "memory");
  rb_ev_origin = before + 1u; /* the count at the ARR store */
  rb_ev_next = rb_ev_origin + RB_EVENT_PERIOD;
}

void TIM3_IRQHandler(void) {
  const uint32_t now = rb_event_now();
  TIM_SR(TIM3_BASE) = 0;
  const uint32_t event = rb_ev_next;
  /* A period or more late: the harness counts it bad; resynchronise. */
  rb_ev_next = (now - event >= RB_EVENT_PERIOD) ? rb_ev_after(now) : event + RB_EVENT_PERIOD;
  rb_event_irq(event, now);
}

void rb_empty_start(void) {
  NVIC_ICER(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
  TIM_SR(TIM4_BASE) = 0;
  NVIC_ICPR(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
  TIM_CR1(TIM4_BASE) = TIM_CR1_CEN;
  TIM_ARR(TIM4_BASE) = RB_EMPTY_PERIOD;
  NVIC_ISER(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
}

void rb_empty_stop(void) {
  TIM_CR1(TIM4_BASE) = 0;
  NVIC_ICER(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
  TIM_SR(TIM4_BASE) = 0;
  NVIC_ICPR(TIM4_IRQN) = NVIC_BIT(TIM4_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* The empty interrupt: acknowledge and count, nothing else. */
volatile uint32_t rb_empty_irqs;

void TIM4_IRQHandler(void) {
  TIM_SR(TIM4_BASE) = 0;
  rb_empty_irqs++;
}

static volatile uint32_t rb_zli_next;

void rb_zli_start(uint32_t level) {
  NVIC_ICER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
  NVIC_IPR(TIM5_IRQN) = RB_PRIO_BYTE(level);
  TIM_SR(TIM5_BASE) = 0;
  NVIC_ICPR(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
  TIM_CR1(TIM5_BASE) = TIM_CR1_CEN;
  uint32_t before;
  __asm volatile(
      "ldr %0, [%1, #0x24]\n\t"
      "str %2, [%1, #0x2c]\n\t"
      : "=&r"(before)
      : "r"(TIM5_BASE), "r"(RB_ZLI_PERIOD)
      : "memory");
  rb_zli_next = before + 1u + RB_ZLI_PERIOD;
  NVIC_ISER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
}

void rb_zli_stop(void) {
  TIM_CR1(TIM5_BASE) = 0;
  NVIC_ICER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
  TIM_SR(TIM5_BASE) = 0;
  NVIC_ICPR(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* zero_latency_irq's handler: no kernel call. Event times as TIM3's. */
void TIM5_IRQHandler(void) {
  const uint32_t now = rb_zli_now();
  TIM_SR(TIM5_BASE) = 0;
  const uint32_t event = rb_zli_next;
  uint32_t next = event + RB_ZLI_PERIOD;
  while (now - next < 0x80000000u) { /* late by a period or more: resynchronise */
    next += RB_ZLI_PERIOD;
  }
  rb_zli_next = next;
  rb_zli_irq(event, now);
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

/* Edges (rb_board.h; docs/firmware.md, "Edges"): QEMU models no GPIO timing,
 * and the netduino2 (STM32F205) machine maps nothing at the GPIO ports, so
 * the three channels are stores to TIM4's CCR2, CCR3 and CCR4, registers
 * QEMU 7.2's stm32f2xx_timer keeps and never compares against (it models the
 * update event only). Each write is one store, where the hardware boards
 * make theirs: the variant runs the same code paths (board.cmake
 * RB_BOARD_EDGE_PINS emulated). */
#define RB_EDGE_MK RB_REG32(TIM4_BASE + 0x38u) /* TIM4_CCR2 */
#define RB_EDGE_EV RB_REG32(TIM4_BASE + 0x3Cu) /* TIM4_CCR3 */
#define RB_EDGE_TK RB_REG32(TIM4_BASE + 0x40u) /* TIM4_CCR4 */

#include "rb_edge_stores.h"
