/* GD32F103C8T6 board layer (seed 001): clock tree HXTAL 8 MHz -> PLL x9 =
 * 72 MHz, AHB /1, APB2 /1 (72 MHz), APB1 /2 (36 MHz), 2 FMC wait states;
 * DWT cycle counter enabled by the firmware itself; TIMER1 CH0 compare as
 * the event source and TIMER3 CH0 as zero_latency_irq's (both on APB1,
 * clocked at 2 x 36 = 72 MHz = the core clock); TIMER2's update as the
 * empty interrupt; USART0 on PA9/PA10 as the console.
 *
 * Registers from the GD32F10x User Manual and GigaDevice's GD32F10x
 * firmware library (gd32f10x_rcu.h: RCU_CTL, RCU_CFG0, RCU_APBxEN,
 * RCU_RSTSCK; FMC_WS; GPIO_CTL1/OCTL; the names below are GigaDevice's).
 * The part is register-compatible with the STM32F103 (RM0008: RCC_CR,
 * RCC_CFGR, RCC_APBxENR, RCC_CSR, FLASH_ACR, GPIOx_CRH/ODR at the same
 * addresses and bit positions) except where noted: RCU_CFG0 bit 27 is
 * PLLMF's fifth bit on the GD32 (multipliers up to x32; reserved on the
 * STM32F103), and FMC_WS has only WSCNT (the STM32F103's FLASH_ACR also has
 * HLFCYA and the prefetch buffer bits). */
#include "rb_board.h"
#include "rb_port.h"
#include "stm32_timer_usart.h"

/* RCU (STM32F103: RCC) */
#define RCU_BASE 0x40021000u
#define RCU_CTL RB_REG32(RCU_BASE + 0x00u)
#define RCU_CFG0 RB_REG32(RCU_BASE + 0x04u)
#define RCU_APB2EN RB_REG32(RCU_BASE + 0x18u)
#define RCU_APB1EN RB_REG32(RCU_BASE + 0x1Cu)
#define RCU_RSTSCK RB_REG32(RCU_BASE + 0x24u)
#define RCU_CTL_HXTALEN (1u << 16)
#define RCU_CTL_HXTALSTB (1u << 17)
#define RCU_CTL_PLLEN (1u << 24)
#define RCU_CTL_PLLSTB (1u << 25)
#define RCU_CFG0_PLLSEL (1u << 16) /* 1: HXTAL (through PREDV0) */
#define RCU_CFG0_PREDV0 (1u << 17) /* 1: HXTAL / 2 into the PLL */
#define RCU_CFG0_PLLMF_4 (1u << 27)
#define RCU_APB2EN_PAEN (1u << 2)
#define RCU_APB2EN_USART0EN (1u << 14)
#define RCU_APB1EN_TIMER1EN (1u << 0)
#define RCU_APB1EN_TIMER2EN (1u << 1)
#define RCU_APB1EN_TIMER3EN (1u << 2)
#define RCU_RSTSCK_RSTFC (1u << 24)

/* FMC (STM32F103: FLASH_ACR) */
#define FMC_WS RB_REG32(0x40022000u)
#define FMC_WS_WSCNT_MASK 0x7u

/* GPIOA (STM32F103: GPIOA_CRH, GPIOA_ODR) */
#define GPIOA_BASE 0x40010800u
#define GPIO_CTL1(b) RB_REG32((b) + 0x04u)
#define GPIO_OCTL(b) RB_REG32((b) + 0x0Cu)

#define USART0_BASE 0x40013800u
#define TIMER1_BASE 0x40000000u
#define TIMER2_BASE 0x40000400u
#define TIMER3_BASE 0x40000800u
#define TIMER1_IRQN 28u
#define TIMER2_IRQN 29u
#define TIMER3_IRQN 30u

#define RB_IRC8M_HZ 8000000u
#define RB_PLL_MUL 9u
#define RB_FMC_WAIT_STATES 2u
#define RB_STARTUP_SPINS 500000u

_Static_assert(RB_HSE_HZ* RB_PLL_MUL == RB_CORE_HZ, "HXTAL x9 is the core clock");

static uint32_t rb_rstsck_at_boot;

static int rb_wait_set(volatile uint32_t* reg, uint32_t mask) {
  for (uint32_t i = 0; i < RB_STARTUP_SPINS; i++) {
    if (*reg & mask) {
      return 1;
    }
  }
  return 0;
}

static void rb_clock_init(void) {
  RCU_CTL |= RCU_CTL_HXTALEN;
  if (!rb_wait_set(&RCU_CTL, RCU_CTL_HXTALSTB)) {
    /* No crystal: stay on IRC8M; core_measured in CONFIG shows it. */
    return;
  }
  /* Wait states before the clock rises: 2 for 48 < SYSCLK <= 72 MHz
   * (RM0008 FLASH_ACR LATENCY; GD32F10x FMC_WS WSCNT, 0 to 2). */
  FMC_WS = (FMC_WS & ~FMC_WS_WSCNT_MASK) | RB_FMC_WAIT_STATES;
  /* AHB /1 (AHBPSC 7:4 = 0), APB1 /2 (APB1PSC 10:8 = 100), APB2 /1
   * (APB2PSC 13:11 = 0); PLL from HXTAL undivided (PLLSEL 1, PREDV0 0), x9
   * (PLLMF 21:18 = 0111, PLLMF_4 = 0). */
  uint32_t cfg = RCU_CFG0;
  cfg &= ~(0x3FF0u | RCU_CFG0_PLLSEL | RCU_CFG0_PREDV0 | (0xFu << 18) | RCU_CFG0_PLLMF_4);
  cfg |= (4u << 8) | RCU_CFG0_PLLSEL | ((RB_PLL_MUL - 2u) << 18);
  RCU_CFG0 = cfg;
  RCU_CTL |= RCU_CTL_PLLEN;
  if (!rb_wait_set(&RCU_CTL, RCU_CTL_PLLSTB)) {
    return;
  }
  RCU_CFG0 = (RCU_CFG0 & ~0x3u) | 0x2u; /* SCS = PLL */
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && ((RCU_CFG0 >> 2) & 0x3u) != 0x2u; i++) {
  }
}

/* SYSCLK from the registers: SCSS (3:2) 0 IRC8M, 1 HXTAL, 2 PLL; the PLL's
 * input IRC8M/2 (PLLSEL 0) or HXTAL, halved by PREDV0; its factor PLLMF
 * (21:18 with bit 27 as bit 4: 0..13 -> x2..x15, 14 and 15 -> x16, bit 4
 * set -> x17 + PLLMF[3:0]); then the AHB prescaler (7:4, the STM32's
 * encoding). 0 when it cannot be read. */
static uint32_t rb_core_from_registers(void) {
  const uint32_t cfg = RCU_CFG0;
  uint32_t sysclk;
  switch ((cfg >> 2) & 0x3u) {
    case 0:
      sysclk = RB_IRC8M_HZ;
      break;
    case 1:
      sysclk = RB_HSE_HZ;
      break;
    case 2: {
      uint32_t in = (cfg & RCU_CFG0_PLLSEL) ? RB_HSE_HZ : RB_IRC8M_HZ / 2u;
      if ((cfg & RCU_CFG0_PLLSEL) && (cfg & RCU_CFG0_PREDV0)) {
        in /= 2u;
      }
      const uint32_t mf = (cfg >> 18) & 0xFu;
      uint32_t mul;
      if (cfg & RCU_CFG0_PLLMF_4) {
        mul = 17u + mf;
      } else {
        mul = mf >= 14u ? 16u : mf + 2u;
      }
      sysclk = in * mul;
      break;
    }
    default:
      return 0;
  }
  const uint32_t hpre = (cfg >> 4) & 0xFu;
  static const uint16_t ahb_div[8] = {2, 4, 8, 16, 64, 128, 256, 512};
  return (hpre & 0x8u) ? sysclk / ahb_div[hpre & 0x7u] : sysclk;
}

/* APB2 = HCLK / APB2PSC (13:11; 0xx: /1, 1xx: /2, /4, /8, /16): USART0's clock. */
static uint32_t rb_apb2_from_registers(void) {
  const uint32_t hclk = rb_core_from_registers();
  const uint32_t psc = (RCU_CFG0 >> 11) & 0x7u;
  return (psc & 0x4u) ? hclk >> ((psc & 0x3u) + 1u) : hclk;
}

/* TIMER1..3's clock: APB1 = HCLK / APB1PSC (10:8), and the timers on APB1
 * run at APB1 when it is undivided and at twice APB1 otherwise. */
static uint32_t rb_event_from_registers(uint32_t hclk) {
  const uint32_t psc = (RCU_CFG0 >> 8) & 0x7u;
  if (!(psc & 0x4u)) {
    return hclk;
  }
  return (hclk >> ((psc & 0x3u) + 1u)) * 2u;
}

static void rb_uart_init(void) {
  RCU_APB2EN |= RCU_APB2EN_PAEN | RCU_APB2EN_USART0EN;
  (void)RCU_APB2EN;
  /* PA9: alternate-function push-pull output, 50 MHz (CTL 10, MD 11); PA10:
   * input with pull-up (CTL 10, MD 00, OCTL bit 10 set). No remap: USART0's
   * default pins need no AFIO set-up. */
  GPIO_CTL1(GPIOA_BASE) = (GPIO_CTL1(GPIOA_BASE) & ~(0xFFu << 4)) | (0xBu << 4) | (0x8u << 8);
  GPIO_OCTL(GPIOA_BASE) |= 1u << 10;
  /* 16x oversampling: BAUD = fck / baud, rounded (mantissa.fraction in
   * 1/16), fck the APB2 clock as the registers say it runs: a board left on
   * IRC8M still talks at the rate. */
  const uint32_t apb2 = rb_apb2_from_registers();
  USART_BRR(USART0_BASE) = (apb2 + RB_UART_BAUD / 2u) / RB_UART_BAUD;
  USART_CR1(USART0_BASE) = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
}

/* A general-purpose timer as a free-running 16-bit up-counter at the timer
 * clock; CH0 in frozen output-compare mode (CHCTL0 = 0) only raises CH0IF
 * when CNT reaches CH0CV (no output: CHCTL2 stays 0). */
static void rb_timer_free_run(uint32_t base, uint32_t car) {
  TIM_CR1(base) = 0;
  TIM_PSC(base) = 0;
  TIM_ARR(base) = car;
  TIM_CCMR1(base) = 0;
  TIM_CCER(base) = 0;
  TIM_EGR(base) = TIM_EGR_UG;
  TIM_SR(base) = 0;
  TIM_DIER(base) = 0;
  TIM_CR1(base) = TIM_CR1_CEN;
}

static void rb_counters_init(void) {
  DBG_DEMCR |= DBG_DEMCR_TRCENA;
  DWT_CYCCNT = 0;
  DWT_CTRL |= DWT_CTRL_CYCCNTENA;
  RCU_APB1EN |= RCU_APB1EN_TIMER1EN | RCU_APB1EN_TIMER2EN | RCU_APB1EN_TIMER3EN;
  (void)RCU_APB1EN;
  rb_timer_free_run(TIMER1_BASE, 0xFFFFu);
  rb_timer_free_run(TIMER2_BASE, RB_EMPTY_PERIOD - 1u);
  rb_timer_free_run(TIMER3_BASE, 0xFFFFu);
  NVIC_ICER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  NVIC_IPR(TIMER1_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICER(TIMER2_IRQN) = NVIC_BIT(TIMER2_IRQN);
  NVIC_IPR(TIMER2_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICER(TIMER3_IRQN) = NVIC_BIT(TIMER3_IRQN); /* its level: rb_zli_start */
}

_Static_assert(RB_EVENT_HZ == RB_CORE_HZ, "event_clock=core: the event timer counts core cycles");
_Static_assert(RB_EVENT_PERIOD < RB_EVENT_MASK / 2u, "the event period must be far below the wrap");
_Static_assert(RB_ZLI_HZ == RB_CORE_HZ, "zero_latency_irq's timer counts core cycles");
_Static_assert(RB_EMPTY_PERIOD - 1u <= 0xFFFFu, "TIMER2 is 16-bit");

void rb_board_console_init(void) {
  rb_rstsck_at_boot = RCU_RSTSCK;
  RCU_RSTSCK |= RCU_RSTSCK_RSTFC;
  rb_clock_init();
  rb_uart_init();
}

void rb_board_init(void) {
  rb_counters_init();
}

int rb_board_getc(void) {
  const uint32_t sr = USART_SR(USART0_BASE);
  if (sr & USART_SR_ORE) {
    (void)USART_DR(USART0_BASE); /* STAT then DATA clears the overrun */
    return -1;
  }
  return (sr & USART_SR_RXNE) ? (int)(USART_DR(USART0_BASE) & 0xFFu) : -1;
}

uint32_t rb_board_idcode(void) {
  return RB_REG32(0xE0042000u); /* DBG_ID (STM32F103: DBGMCU_IDCODE) */
}

void rb_board_write(const char* s, uint32_t n) {
  rb_usart_write(USART0_BASE, s, n);
}

/* ---- events: TIMER1 CH0 ------------------------------------------------------ */

void rb_event_start(void) {
  NVIC_ICER(TIMER1_IRQN) = NVIC_BIT(TIMER1_IRQN);
  TIM_CCR1(TIMER1_BASE) = (rb_event_now() + RB_EVENT_PERIOD) & RB_EVENT_MASK;
  rb_tim_irq_arm(TIMER1_BASE, TIMER1_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_event_stop(void) {
  rb_tim_irq_stop(TIMER1_BASE, TIMER1_IRQN, TIM_SR_CC1IF);
}

/* CH0CV holds every event's time: nothing to re-read (rb_board.h). */
void rb_event_resync(void) {}

void TIM2_IRQHandler(void) {
  const uint32_t now = rb_event_now();
  rb_event_irq(RB_TIM_CC1_NEXT(TIMER1_BASE, now, RB_EVENT_PERIOD, RB_EVENT_MASK), now);
}

/* ---- empty interrupts: TIMER2's update ------------------------------------- */

void rb_empty_start(void) {
  rb_tim_up_start(TIMER2_BASE, TIMER2_IRQN);
}

void rb_empty_stop(void) {
  rb_tim_irq_stop(TIMER2_BASE, TIMER2_IRQN, TIM_SR_UIF);
}

/* The empty interrupt: acknowledge and count, nothing else. */
volatile uint32_t rb_empty_irqs;

void TIM3_IRQHandler(void) {
  TIM_SR(TIMER2_BASE) = ~TIM_SR_UIF;
  rb_empty_irqs++;
}

/* ---- zero_latency_irq: TIMER3 CH0, as TIMER1's events -------------------------- */

void rb_zli_start(uint32_t level) {
  NVIC_ICER(TIMER3_IRQN) = NVIC_BIT(TIMER3_IRQN);
  NVIC_IPR(TIMER3_IRQN) = RB_PRIO_BYTE(level);
  TIM_CCR1(TIMER3_BASE) = (rb_zli_now() + RB_ZLI_PERIOD) & RB_ZLI_MASK;
  rb_tim_irq_arm(TIMER3_BASE, TIMER3_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_zli_stop(void) {
  rb_tim_irq_stop(TIMER3_BASE, TIMER3_IRQN, TIM_SR_CC1IF);
}

/* No kernel call here: the zero-latency handler. */
void TIM4_IRQHandler(void) {
  const uint32_t now = rb_zli_now();
  rb_zli_irq(RB_TIM_CC1_NEXT(TIMER3_BASE, now, RB_ZLI_PERIOD, RB_ZLI_MASK), now);
}

void rb_board_read_facts(struct rb_board_facts* facts) {
  facts->core_measured_hz = rb_core_from_registers();
  facts->irq_measured_hz = rb_event_from_registers(facts->core_measured_hz);
  const uint32_t rst = rb_rstsck_at_boot;
  facts->reset_flags = rst;
  facts->has_reset_flags = 1;
  /* RCU_RSTSCK: LPRSTF 31, WWDGTRSTF 30, FWDGTRSTF 29, SWRSTF 28, PORRSTF
   * 27, EPRSTF 26 (RM0008 RCC_CSR: the same bits). A power-on reset also
   * sets EPRSTF: the specific causes first. */
  if (rst & (1u << 31)) {
    facts->reset_cause = "lpwr";
  } else if (rst & (1u << 30)) {
    facts->reset_cause = "wwdg";
  } else if (rst & (1u << 29)) {
    facts->reset_cause = "iwdg";
  } else if (rst & (1u << 28)) {
    facts->reset_cause = "sw";
  } else if (rst & (1u << 27)) {
    facts->reset_cause = "por";
  } else if (rst & (1u << 26)) {
    facts->reset_cause = "pin";
  } else {
    facts->reset_cause = 0;
  }
  facts->flash_ws = (int)(FMC_WS & FMC_WS_WSCNT_MASK);
  /* No instruction or data cache, no prefetch bit in FMC_WS: n/a. */
  facts->icache = -1;
  facts->dcache = -1;
  facts->prefetch = -1;
}

/* Edges (rb_board.h; docs/firmware.md, "Edges"): EV is PA0, TIMER1_CH0 in
 * its default (not remapped) place (GD32F10x user manual, TIMER1 pin
 * table), TIMER1 CH0 being the event timer: "active on match" (CH0COMCTL =
 * 001) sets it at the compare match, "force low" (100) and "force high"
 * (101) as on the STM32. MK is PB12 and TK PB13, push-pull outputs written
 * through BOP (one store each). Not yet wired to an analyzer on a bench. */
#define GPIOB_BASE 0x40010C00u
#define GPIO_CTL0(b) RB_REG32((b) + 0x00u)
#define GPIO_BOP(b) RB_REG32((b) + 0x10u)
#define RCU_APB2EN_PBEN (1u << 3)
#define RB_EDGE_MK_PIN 12u
#define RB_EDGE_TK_PIN 13u

void rb_board_edge_init(void) {
  RCU_APB2EN |= RCU_APB2EN_PAEN | RCU_APB2EN_PBEN;
  (void)RCU_APB2EN;
  GPIO_BOP(GPIOB_BASE) = (1u << (RB_EDGE_MK_PIN + 16u)) | (1u << (RB_EDGE_TK_PIN + 16u));
  /* PB12, PB13: push-pull outputs, 50 MHz (CTL 00, MD 11). */
  GPIO_CTL1(GPIOB_BASE) =
      (GPIO_CTL1(GPIOB_BASE) &
       ~((0xFu << 4u * (RB_EDGE_MK_PIN - 8u)) | (0xFu << 4u * (RB_EDGE_TK_PIN - 8u)))) |
      (0x3u << 4u * (RB_EDGE_MK_PIN - 8u)) | (0x3u << 4u * (RB_EDGE_TK_PIN - 8u));
  TIM_CCMR1(TIMER1_BASE) = (TIM_CCMR1(TIMER1_BASE) & ~TIM_OC1M_MASK) | TIM_OC1M_FORCE_LOW;
  TIM_CCER(TIMER1_BASE) |= 1u; /* CH0EN: the channel drives its pin, active high */
  /* PA0: alternate-function push-pull output, 50 MHz (CTL 10, MD 11). */
  GPIO_CTL0(GPIOA_BASE) = (GPIO_CTL0(GPIOA_BASE) & ~0xFu) | 0xBu;
}

#define RB_EDGE_TIM TIMER1_BASE
#define RB_EDGE_PIN_SET GPIO_BOP(GPIOB_BASE)
#include "rb_edge_oc1.h"
