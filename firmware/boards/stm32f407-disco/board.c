/* STM32F407 Discovery board layer: clock tree as in seed 000 (HSE 8 MHz,
 * PLL to 168 MHz, VOS scale 1, 5 flash wait states, ART caches and prefetch
 * on), DWT cycle counter enabled by the firmware itself (a debugger that
 * disconnects may leave TRCENA clear), TIM1 CC1 as the event source (timer
 * clock = core clock, rb_board_hw.h; read back from RCC_CFGR as
 * irq_hz_measured), TIM1's update as the empty interrupt,
 * USART2 on PA2/PA3 as the console. */
#include "rb_board.h"
#include "rb_port.h"
#include "stm32f4_regs.h"

#define RB_HSI_HZ 16000000u
#define RB_PLL_M 8u
#define RB_PLL_N 336u
#define RB_PLL_P 2u
#define RB_PLL_Q 7u
#define RB_STARTUP_SPINS 500000u

static uint32_t rb_csr_at_boot;

/* A kernel that sets the clocks itself (NuttX: firmware/ports/nuttx)
 * defines RB_KERNEL_OWNS_CLOCKS: the board then only reads them back. */
#ifndef RB_KERNEL_OWNS_CLOCKS
static int rb_wait_set(volatile uint32_t* reg, uint32_t mask) {
  for (uint32_t i = 0; i < RB_STARTUP_SPINS; i++) {
    if (*reg & mask) {
      return 1;
    }
  }
  return 0;
}

static void rb_clock_init(void) {
  RCC_CR |= RCC_CR_HSEON;
  if (!rb_wait_set(&RCC_CR, RCC_CR_HSERDY)) {
    /* No crystal: stay on HSI; core_measured in CONFIG shows it. */
    return;
  }
  RCC_APB1ENR |= 1u << 28; /* PWREN */
  PWR_CR |= PWR_CR_VOS;    /* scale 1: required for 168 MHz */
  FLASH_ACR = FLASH_ACR_ICRST | FLASH_ACR_DCRST;
  FLASH_ACR = 5u | FLASH_ACR_PRFTEN | FLASH_ACR_ICEN | FLASH_ACR_DCEN;
  /* AHB /1, APB1 /4 (42 MHz), APB2 /2 (84 MHz). */
  RCC_CFGR = (RCC_CFGR & ~0x0000FCF0u) | (5u << 10) | (4u << 13);
  RCC_PLLCFGR =
      RB_PLL_M | (RB_PLL_N << 6) | (((RB_PLL_P / 2u) - 1u) << 16) | (1u << 22) | (RB_PLL_Q << 24);
  RCC_CR |= RCC_CR_PLLON;
  if (!rb_wait_set(&RCC_CR, RCC_CR_PLLRDY)) {
    return;
  }
  RCC_CFGR = (RCC_CFGR & ~0x3u) | 0x2u; /* SW = PLL */
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && ((RCC_CFGR >> 2) & 0x3u) != 0x2u; i++) {
  }
}
#endif

static uint32_t rb_core_from_registers(void);

/* APB1 = HCLK / PPRE1 (RCC_CFGR bits 12:10; 0xx: /1, 1xx: /2, /4, /8, /16). */
static uint32_t rb_apb1_from_registers(void) {
  const uint32_t hclk = rb_core_from_registers();
  const uint32_t ppre1 = (RCC_CFGR >> 10) & 0x7u;
  return (ppre1 & 0x4u) ? hclk >> ((ppre1 & 0x3u) + 1u) : hclk;
}

static void rb_uart_init(void) {
  RCC_AHB1ENR |= 1u << 0;  /* GPIOA */
  RCC_APB1ENR |= 1u << 17; /* USART2 */
  (void)RCC_APB1ENR;
  /* PA2, PA3: alternate function 7, high speed, pull-up on RX. */
  GPIO_MODER(GPIOA_BASE) = (GPIO_MODER(GPIOA_BASE) & ~(0xFu << 4)) | (0xAu << 4);
  GPIO_OSPEEDR(GPIOA_BASE) |= 0xFu << 4;
  GPIO_PUPDR(GPIOA_BASE) = (GPIO_PUPDR(GPIOA_BASE) & ~(0xFu << 4)) | (0x4u << 4);
  GPIO_AFRL(GPIOA_BASE) = (GPIO_AFRL(GPIOA_BASE) & ~(0xFFu << 8)) | (0x77u << 8);
  /* 16x oversampling: BRR = fck / baud, rounded (mantissa.fraction in 1/16),
   * fck the APB1 clock as the clock registers say it runs (RM0090 "USART
   * baud rate generation"): a board left on HSI still talks at the rate. */
  const uint32_t apb1 = rb_apb1_from_registers();
  USART_BRR(USART2_BASE) = (apb1 + RB_UART_BAUD / 2u) / RB_UART_BAUD;
  USART_CR1(USART2_BASE) = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
}

static void rb_counters_init(void) {
  DBG_DEMCR |= DBG_DEMCR_TRCENA;
  DWT_CYCCNT = 0;
  DWT_CTRL |= DWT_CTRL_CYCCNTENA;
  /* TIM1: free-running 16-bit up-counter at 168 MHz (APB2 84 MHz x2);
   * CC1 in frozen output-compare mode only raises CC1IF when CNT reaches
   * CCR1 (no output: CCER and BDTR.MOE stay 0). The update (overflow)
   * interrupt is the empty interrupt. */
  RCC_APB2ENR |= 1u << 0; /* TIM1EN */
  (void)RCC_APB2ENR;
  TIM_CR1(TIM1_BASE) = 0;
  TIM_PSC(TIM1_BASE) = 0;
  TIM_ARR(TIM1_BASE) = 0xFFFFu;
  TIM_CCMR1(TIM1_BASE) = 0;
  TIM_CCER(TIM1_BASE) = 0;
  TIM_BDTR(TIM1_BASE) = 0;
  TIM_EGR(TIM1_BASE) = TIM_EGR_UG;
  TIM_SR(TIM1_BASE) = 0;
  TIM_DIER(TIM1_BASE) = 0;
  TIM_CR1(TIM1_BASE) = TIM_CR1_CEN;
  NVIC_ICER(TIM1_CC_IRQN) = NVIC_BIT(TIM1_CC_IRQN);
  NVIC_IPR(TIM1_CC_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICER(TIM1_UP_TIM10_IRQN) = NVIC_BIT(TIM1_UP_TIM10_IRQN);
  NVIC_IPR(TIM1_UP_TIM10_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  /* TIM8: zero_latency_irq's events, TIM1's twin (APB2, 168 MHz, 16-bit,
   * CC1 frozen compare); its level is set by rb_zli_start. */
  RCC_APB2ENR |= 1u << 1; /* TIM8EN */
  (void)RCC_APB2ENR;
  TIM_CR1(TIM8_BASE) = 0;
  TIM_PSC(TIM8_BASE) = 0;
  TIM_ARR(TIM8_BASE) = 0xFFFFu;
  TIM_CCMR1(TIM8_BASE) = 0;
  TIM_CCER(TIM8_BASE) = 0;
  TIM_BDTR(TIM8_BASE) = 0;
  TIM_EGR(TIM8_BASE) = TIM_EGR_UG;
  TIM_SR(TIM8_BASE) = 0;
  TIM_DIER(TIM8_BASE) = 0;
  TIM_CR1(TIM8_BASE) = TIM_CR1_CEN;
  NVIC_ICER(TIM8_CC_IRQN) = NVIC_BIT(TIM8_CC_IRQN);
}

_Static_assert(RB_EVENT_HZ == RB_CORE_HZ, "event_clock=core: the event timer counts core cycles");
_Static_assert(RB_EVENT_PERIOD < RB_EVENT_MASK / 2u, "the event period must be far below the wrap");
_Static_assert(RB_ZLI_HZ == RB_CORE_HZ, "zero_latency_irq's timer counts core cycles");

void rb_board_console_init(void) {
  rb_csr_at_boot = RCC_CSR;
  RCC_CSR |= RCC_CSR_RMVF;
#ifndef RB_KERNEL_OWNS_CLOCKS
  rb_clock_init();
#endif
  rb_uart_init();
}

void rb_board_init(void) {
  rb_counters_init();
}

int rb_board_getc(void) {
  const uint32_t sr = USART_SR(USART2_BASE);
  if (sr & USART_SR_ORE) {
    (void)USART_DR(USART2_BASE); /* SR then DR clears the overrun */
    return -1;
  }
  return (sr & USART_SR_RXNE) ? (int)(USART_DR(USART2_BASE) & 0xFFu) : -1;
}

uint32_t rb_board_idcode(void) {
  return RB_REG32(0xE0042000u); /* DBGMCU_IDCODE (RM0090 "MCU device ID code") */
}

void rb_board_write(const char* s, uint32_t n) {
  rb_usart_write(USART2_BASE, s, n);
}

void rb_event_start(void) {
  NVIC_ICER(TIM1_CC_IRQN) = NVIC_BIT(TIM1_CC_IRQN);
  TIM_CCR1(TIM1_BASE) = (rb_event_now() + RB_EVENT_PERIOD) & RB_EVENT_MASK;
  rb_tim_irq_arm(TIM1_BASE, TIM1_CC_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_event_stop(void) {
  rb_tim_irq_stop(TIM1_BASE, TIM1_CC_IRQN, TIM_SR_CC1IF);
}

/* CCR1 holds every event's time: nothing to re-read (rb_board.h). */
void rb_event_resync(void) {}

void TIM1_CC_IRQHandler(void) {
  const uint32_t now = rb_event_now();
  rb_event_irq(RB_TIM_CC1_NEXT(TIM1_BASE, now, RB_EVENT_PERIOD, RB_EVENT_MASK), now);
}

void rb_empty_start(void) {
  rb_tim_up_start(TIM1_BASE, TIM1_UP_TIM10_IRQN);
}

void rb_empty_stop(void) {
  rb_tim_irq_stop(TIM1_BASE, TIM1_UP_TIM10_IRQN, TIM_SR_UIF);
}

/* The empty interrupt: acknowledge and count, nothing else. */
volatile uint32_t rb_empty_irqs;

void TIM1_UP_TIM10_IRQHandler(void) {
  TIM_SR(TIM1_BASE) = ~TIM_SR_UIF;
  rb_empty_irqs++;
}

/* ---- zero_latency_irq: TIM8 CC1, as TIM1's events -------------------------- */

void rb_zli_start(uint32_t level) {
  NVIC_ICER(TIM8_CC_IRQN) = NVIC_BIT(TIM8_CC_IRQN);
  NVIC_IPR(TIM8_CC_IRQN) = RB_PRIO_BYTE(level);
  TIM_CCR1(TIM8_BASE) = (rb_zli_now() + RB_ZLI_PERIOD) & RB_ZLI_MASK;
  rb_tim_irq_arm(TIM8_BASE, TIM8_CC_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_zli_stop(void) {
  rb_tim_irq_stop(TIM8_BASE, TIM8_CC_IRQN, TIM_SR_CC1IF);
}

/* No kernel call here: the zero-latency handler. */
void TIM8_CC_IRQHandler(void) {
  const uint32_t now = rb_zli_now();
  rb_zli_irq(RB_TIM_CC1_NEXT(TIM8_BASE, now, RB_ZLI_PERIOD, RB_ZLI_MASK), now);
}

/* ---- STOP mode (sleep_wake, phase stop) --------------------------------------
 * RM0090 section 5.3 (PWR, low-power modes): STOP is entered by WFI with
 * SLEEPDEEP set and PDDS clear (LPDS: the regulator in low-power mode); every
 * clock of the 1.2 V domain stops (PLL, HSI, HSE off), SRAM and registers
 * are kept; an EXTI line in interrupt mode wakes the core, which then runs on
 * HSI (16 MHz), so the clock tree is restored before anything is timed. The
 * RTC (backup domain, here on the LSI) keeps running in STOP; its wake-up
 * timer is EXTI line 22 (RTC_WKUP, IRQ 3). TIM1 and the DWT counter stop with
 * their clocks. */
#define RCC_BDCR RB_REG32(RCC_BASE + 0x70u)
#define RCC_BDCR_RTCEN (1u << 15)
#define RCC_BDCR_BDRST (1u << 16)
#define RCC_BDCR_RTCSEL_LSI (2u << 8)
#define RCC_BDCR_RTCSEL_MASK (3u << 8)
#define RCC_CSR_LSION (1u << 0)
#define RCC_CSR_LSIRDY (1u << 1)
#define PWR_CR_LPDS (1u << 0)
#define PWR_CR_PDDS (1u << 1)
#define PWR_CR_CWUF (1u << 2)
#define PWR_CR_DBP (1u << 8)
#define RTC_BASE 0x40002800u
#define RTC_CR RB_REG32(RTC_BASE + 0x08u)
#define RTC_ISR RB_REG32(RTC_BASE + 0x0Cu)
#define RTC_WUTR RB_REG32(RTC_BASE + 0x14u)
#define RTC_WPR RB_REG32(RTC_BASE + 0x24u)
#define RTC_CR_WUCKSEL_DIV2 3u /* WUCKSEL 011: RTC clock / 2 */
#define RTC_CR_WUTE (1u << 10)
#define RTC_CR_WUTIE (1u << 14)
#define RTC_ISR_WUTWF (1u << 2)
#define RTC_ISR_INIT (1u << 7)
#define RTC_ISR_WUTF (1u << 10)
#define EXTI_BASE 0x40013C00u
#define EXTI_IMR RB_REG32(EXTI_BASE + 0x00u)
#define EXTI_RTSR RB_REG32(EXTI_BASE + 0x08u)
#define EXTI_PR RB_REG32(EXTI_BASE + 0x14u)
#define EXTI_RTC_WKUP (1u << 22)
#define SCB_SCR RB_REG32(0xE000ED10u)
#define SCB_SCR_SLEEPDEEP (1u << 2)

static volatile uint32_t rb_stop_wfi_cycles;

/* Back to the PLL after STOP: HSE, then the PLL (its configuration registers
 * keep their values through STOP), then the switch. */
static void rb_clock_restore(void) {
  if (((RCC_CFGR >> 2) & 0x3u) == 0x2u) {
    return;
  }
  RCC_CR |= RCC_CR_HSEON;
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && !(RCC_CR & RCC_CR_HSERDY); i++) {
  }
  RCC_CR |= RCC_CR_PLLON;
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && !(RCC_CR & RCC_CR_PLLRDY); i++) {
  }
  RCC_CFGR = (RCC_CFGR & ~0x3u) | 0x2u;
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && ((RCC_CFGR >> 2) & 0x3u) != 0x2u; i++) {
  }
}

void rb_stop_start(void) {
  RCC_APB1ENR |= 1u << 28; /* PWREN */
  (void)RCC_APB1ENR;
  PWR_CR |= PWR_CR_DBP; /* backup domain (RTC) writable */
  RCC_CSR |= RCC_CSR_LSION;
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && !(RCC_CSR & RCC_CSR_LSIRDY); i++) {
  }
  if ((RCC_BDCR & RCC_BDCR_RTCSEL_MASK) != RCC_BDCR_RTCSEL_LSI) {
    RCC_BDCR |= RCC_BDCR_BDRST; /* RTCSEL can change only after a backup-domain reset */
    RCC_BDCR &= ~RCC_BDCR_BDRST;
    RCC_BDCR = RCC_BDCR_RTCSEL_LSI;
  }
  RCC_BDCR |= RCC_BDCR_RTCEN;
  RTC_WPR = 0xCAu;
  RTC_WPR = 0x53u;
  RTC_CR &= ~(RTC_CR_WUTE | RTC_CR_WUTIE);
  for (uint32_t i = 0; i < RB_STARTUP_SPINS && !(RTC_ISR & RTC_ISR_WUTWF); i++) {
  }
  RTC_WUTR = RB_STOP_WUT;
  RTC_CR = (RTC_CR & ~0x7u) | RTC_CR_WUCKSEL_DIV2;
  RTC_ISR = ~(RTC_ISR_WUTF | RTC_ISR_INIT);
  RTC_CR |= RTC_CR_WUTIE | RTC_CR_WUTE;
  RTC_WPR = 0xFFu;
  EXTI_IMR |= EXTI_RTC_WKUP;
  EXTI_RTSR |= EXTI_RTC_WKUP;
  EXTI_PR = EXTI_RTC_WKUP;
  NVIC_IPR(RTC_WKUP_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICPR(RTC_WKUP_IRQN) = NVIC_BIT(RTC_WKUP_IRQN);
  NVIC_ISER(RTC_WKUP_IRQN) = NVIC_BIT(RTC_WKUP_IRQN);
}

void rb_stop_stop(void) {
  RTC_WPR = 0xCAu;
  RTC_WPR = 0x53u;
  RTC_CR &= ~(RTC_CR_WUTE | RTC_CR_WUTIE);
  RTC_ISR = ~(RTC_ISR_WUTF | RTC_ISR_INIT);
  RTC_WPR = 0xFFu;
  EXTI_IMR &= ~EXTI_RTC_WKUP;
  EXTI_PR = EXTI_RTC_WKUP;
  NVIC_ICER(RTC_WKUP_IRQN) = NVIC_BIT(RTC_WKUP_IRQN);
  NVIC_ICPR(RTC_WKUP_IRQN) = NVIC_BIT(RTC_WKUP_IRQN);
  SCB_SCR &= ~SCB_SCR_SLEEPDEEP;
  __asm volatile("dsb\n\tisb" ::: "memory");
}

/* From the idle hook: STOP with the regulator in low-power mode. */
void rb_stop_idle(void) {
  PWR_CR = (PWR_CR & ~PWR_CR_PDDS) | PWR_CR_LPDS | PWR_CR_CWUF;
  SCB_SCR |= SCB_SCR_SLEEPDEEP;
  rb_stop_wfi_cycles = DWT_CYCCNT;
  __asm volatile("dsb\n\twfi\n\tisb" ::: "memory");
  SCB_SCR &= ~SCB_SCR_SLEEPDEEP;
}

void RTC_WKUP_IRQHandler(void) {
  const uint32_t cycles = DWT_CYCCNT - rb_stop_wfi_cycles;
  rb_clock_restore();
  const uint32_t now = rb_event_now();
  RTC_ISR = ~(RTC_ISR_WUTF | RTC_ISR_INIT);
  EXTI_PR = EXTI_RTC_WKUP;
  rb_stop_irq(now, cycles);
}

static uint32_t rb_core_from_registers(void) {
  const uint32_t cfgr = RCC_CFGR;
  uint32_t sysclk;
  switch ((cfgr >> 2) & 0x3u) {
    case 0:
      sysclk = RB_HSI_HZ;
      break;
    case 1:
      sysclk = RB_HSE_HZ;
      break;
    case 2: {
      const uint32_t pll = RCC_PLLCFGR;
      const uint32_t m = pll & 0x3Fu;
      const uint32_t n = (pll >> 6) & 0x1FFu;
      const uint32_t p = (((pll >> 16) & 0x3u) + 1u) * 2u;
      const uint32_t src = (pll & (1u << 22)) ? RB_HSE_HZ : RB_HSI_HZ;
      if (m == 0u || (src == 0u)) {
        return 0;
      }
      sysclk = (uint32_t)(((uint64_t)src / m) * n / p);
      break;
    }
    default:
      return 0;
  }
  const uint32_t hpre = (cfgr >> 4) & 0xFu;
  static const uint16_t ahb_div[8] = {2, 4, 8, 16, 64, 128, 256, 512};
  return (hpre & 0x8u) ? sysclk / ahb_div[hpre & 0x7u] : sysclk;
}

/* TIM1's (and TIM8's) clock from the registers: APB2 = HCLK / PPRE2
 * (RCC_CFGR bits 15:13; 0xx: /1, 1xx: /2, /4, /8, /16), and the timers on
 * APB2 run at APB2 when PPRE2 is /1 and at twice APB2 otherwise (RM0090
 * 6.2, "Clocks"; the F407 has no TIMPRE). 0 when HCLK cannot be read. */
static uint32_t rb_event_from_registers(uint32_t hclk) {
  const uint32_t ppre2 = (RCC_CFGR >> 13) & 0x7u;
  if (!(ppre2 & 0x4u)) {
    return hclk;
  }
  return (hclk >> ((ppre2 & 0x3u) + 1u)) * 2u;
}

void rb_board_read_facts(struct rb_board_facts* facts) {
  facts->core_measured_hz = rb_core_from_registers();
  facts->irq_measured_hz = rb_event_from_registers(facts->core_measured_hz);
  const uint32_t csr = rb_csr_at_boot;
  facts->reset_flags = csr;
  facts->has_reset_flags = 1;
  /* A power-on reset also sets PIN and BOR: test the specific causes first. */
  if (csr & (1u << 31)) {
    facts->reset_cause = "lpwr";
  } else if (csr & (1u << 30)) {
    facts->reset_cause = "wwdg";
  } else if (csr & (1u << 29)) {
    facts->reset_cause = "iwdg";
  } else if (csr & (1u << 28)) {
    facts->reset_cause = "sw";
  } else if (csr & (1u << 27)) {
    facts->reset_cause = "por";
  } else if (csr & (1u << 25)) {
    facts->reset_cause = "bor";
  } else if (csr & (1u << 26)) {
    facts->reset_cause = "pin";
  } else {
    facts->reset_cause = 0;
  }
  const uint32_t acr = FLASH_ACR;
  facts->flash_ws = (int)(acr & FLASH_ACR_LATENCY_MASK);
  facts->icache = (acr & FLASH_ACR_ICEN) ? 1 : 0;
  facts->dcache = (acr & FLASH_ACR_DCEN) ? 1 : 0;
  facts->prefetch = (acr & FLASH_ACR_PRFTEN) ? 1 : 0;
}

/* Edges (rb_board.h; docs/firmware.md, "Edges"): three pins of port E on the
 * STM32F407G-DISC1's extension headers that, as UM1472's pin table reads
 * here, no part of the board uses (its accelerometer has PE0, PE1 and PE3);
 * not yet wired to an analyzer on a bench. EV is PE9 in
 * alternate function 1, TIM1_CH1 (RM0090 / the STM32F407 datasheet's
 * alternate function table): TIM1 CC1 is the event timer, so "active on
 * match" (OC1M = 001) sets the pin at the compare match itself, no software
 * in between; "force inactive" (OC1M = 100) lowers it, "force active"
 * (OC1M = 101) raises it. TIM1 is an advanced timer: its outputs need
 * BDTR.MOE. MK is PE11 and TK PE13, push-pull outputs written through BSRR
 * (one store each). */
#define GPIOE_BASE 0x40021000u
#define GPIO_BSRR(b) RB_REG32((b) + 0x18u)
#define GPIO_AFRH(b) RB_REG32((b) + 0x24u)
#define RB_EDGE_EV_PIN 9u
#define RB_EDGE_MK_PIN 11u
#define RB_EDGE_TK_PIN 13u

void rb_board_edge_init(void) {
  RCC_AHB1ENR |= 1u << 4; /* GPIOE */
  (void)RCC_AHB1ENR;
  GPIO_BSRR(GPIOE_BASE) = (1u << (RB_EDGE_MK_PIN + 16u)) | (1u << (RB_EDGE_TK_PIN + 16u));
  /* PE11, PE13 outputs (01), PE9 alternate function (10); very high speed. */
  uint32_t moder = GPIO_MODER(GPIOE_BASE);
  moder &= ~((3u << (2u * RB_EDGE_EV_PIN)) | (3u << (2u * RB_EDGE_MK_PIN)) |
             (3u << (2u * RB_EDGE_TK_PIN)));
  moder |=
      (2u << (2u * RB_EDGE_EV_PIN)) | (1u << (2u * RB_EDGE_MK_PIN)) | (1u << (2u * RB_EDGE_TK_PIN));
  GPIO_OSPEEDR(GPIOE_BASE) |=
      (3u << (2u * RB_EDGE_EV_PIN)) | (3u << (2u * RB_EDGE_MK_PIN)) | (3u << (2u * RB_EDGE_TK_PIN));
  GPIO_AFRH(GPIOE_BASE) = (GPIO_AFRH(GPIOE_BASE) & ~(0xFu << (4u * (RB_EDGE_EV_PIN - 8u)))) |
                          (1u << (4u * (RB_EDGE_EV_PIN - 8u))); /* AF1: TIM1_CH1 */
  TIM_CCMR1(TIM1_BASE) = (TIM_CCMR1(TIM1_BASE) & ~TIM_OC1M_MASK) | TIM_OC1M_FORCE_LOW;
  TIM_CCER(TIM1_BASE) |= 1u;       /* CC1E: OC1 drives the pin, active high */
  TIM_BDTR(TIM1_BASE) |= 1u << 15; /* MOE */
  GPIO_MODER(GPIOE_BASE) = moder;
}

#define RB_EDGE_TIM TIM1_BASE
#define RB_EDGE_PIN_SET GPIO_BSRR(GPIOE_BASE)
#include "rb_edge_oc1.h"
