/* nucleo-h5 board layer (NUCLEO-H563ZI; facts: docs/firmware.md, "nucleo-h5").
 * Register addresses and bits from ST's stm32h563xx.h (cmsis_device_h5
 * v1.3.0), the clock sequence from STM32CubeH5's NUCLEO-H563ZI template
 * (Templates/TrustZoneDisabled, SystemClock_Config: VOS0, HSE digital
 * bypass 8 MHz, PLL1 M 4 N 250 P 2, AHB and APB1/2/3 /1, 5 flash wait
 * states) and the HAL's definitions of those settings
 * (stm32h5xx_hal_rcc.h, _pwr_ex.h, _flash_ex.h, ll_utils.c). Not run on a
 * board here. */
#include "cm4_regs.h"
#include "rb_board.h"
#include "rb_port.h"
/* The H5 TIMx's CCMR1 output-compare mode field: OC1M[2:0] and OC1M[3] at bit 16. */
#define TIM_OC1M_MASK ((7u << 4) | (1u << 16))
#include "stm32_tim.h"

/* RCC (AHB3 0x44020C00), PWR (0x44020800), FLASH (0x40022000), ICACHE
 * (0x40030400), GPIOD (AHB2 0x42020C00), USART3 (APB1 0x40004800), TIM2/3/5
 * (APB1 0x40000000/0400/0C00): the non-secure aliases, TrustZone off. */
#define RCC_BASE 0x44020C00u
#define RCC_CR RB_REG32(RCC_BASE + 0x00u)
#define RCC_CFGR1 RB_REG32(RCC_BASE + 0x1Cu)
#define RCC_CFGR2 RB_REG32(RCC_BASE + 0x20u)
#define RCC_PLL1CFGR RB_REG32(RCC_BASE + 0x28u)
#define RCC_PLL1DIVR RB_REG32(RCC_BASE + 0x34u)
#define RCC_AHB2ENR RB_REG32(RCC_BASE + 0x8Cu)
#define RCC_APB1LENR RB_REG32(RCC_BASE + 0x9Cu)
#define RCC_CCIPR1 RB_REG32(RCC_BASE + 0xD8u)
#define RCC_RSR RB_REG32(RCC_BASE + 0xF4u)
#define RCC_CR_HSIDIV_POS 3u
#define RCC_CR_HSEON (1u << 16)
#define RCC_CR_HSERDY (1u << 17)
#define RCC_CR_HSEBYP (1u << 18)
#define RCC_CR_HSEEXT (1u << 20) /* with HSEBYP: digital (square-wave) input */
#define RCC_CR_PLL1ON (1u << 24)
#define RCC_CR_PLL1RDY (1u << 25)
#define RCC_CFGR1_TIMPRE (1u << 15)
#define RCC_PLL1CFGR_SRC_HSE 3u        /* PLL1SRC 11 */
#define RCC_PLL1CFGR_RGE_2_4 (1u << 2) /* PLL1RGE 01: 2 to 4 MHz input */
#define RCC_PLL1CFGR_FRACEN (1u << 4)
#define RCC_PLL1CFGR_PEN (1u << 16)
#define RCC_RSR_RMVF (1u << 23)
#define PWR_VOSCR RB_REG32(0x44020800u + 0x10u)
#define PWR_VOSSR RB_REG32(0x44020800u + 0x14u)
#define PWR_VOS0 (3u << 4) /* VOS 11: scale 0, up to 250 MHz */
#define PWR_VOSSR_VOSRDY (1u << 3)
#define FLASH_ACR RB_REG32(0x40022000u)
#define FLASH_ACR_LATENCY_MASK 0xFu
#define FLASH_ACR_WRHIGHFREQ_MASK (3u << 4)
#define FLASH_ACR_WRHIGHFREQ_2 (2u << 4) /* programming delay, 168 to 250 MHz */
#define FLASH_ACR_PRFTEN (1u << 8)
#define ICACHE_CR RB_REG32(0x40030400u)
#define ICACHE_SR RB_REG32(0x40030404u)
#define ICACHE_CR_EN 1u
#define ICACHE_SR_BUSYF 1u
#define GPIOD_BASE 0x42020C00u
#define GPIO_MODER(b) RB_REG32((b) + 0x00u)
#define GPIO_OSPEEDR(b) RB_REG32((b) + 0x08u)
#define GPIO_PUPDR(b) RB_REG32((b) + 0x0Cu)
#define GPIO_AFRH(b) RB_REG32((b) + 0x24u)
#define USART3_BASE 0x40004800u
#define USART_CR1 RB_REG32(USART3_BASE + 0x00u)
#define USART_BRR RB_REG32(USART3_BASE + 0x0Cu)
#define USART_ISR RB_REG32(USART3_BASE + 0x1Cu)
#define USART_ICR RB_REG32(USART3_BASE + 0x20u)
#define USART_RDR RB_REG32(USART3_BASE + 0x24u)
#define USART_TDR RB_REG32(USART3_BASE + 0x28u)
#define USART_CR1_UE (1u << 0)
#define USART_CR1_RE (1u << 2)
#define USART_CR1_TE (1u << 3)
#define USART_ISR_ORE (1u << 3)
#define USART_ISR_RXNE (1u << 5)
#define USART_ISR_TC (1u << 6)
#define USART_ISR_TXE (1u << 7)
#define USART_ICR_ORECF (1u << 3)
#define TIM2_BASE 0x40000000u
#define TIM3_BASE 0x40000400u
#define TIM5_BASE 0x40000C00u
#define TIM2_IRQN 45u
#define TIM3_IRQN 46u
#define TIM5_IRQN 48u

#define RB_HSI_HZ 64000000u /* before HSIDIV */
#define RB_PLL_M 4u         /* 8 MHz / 4 = 2 MHz, PLL1RGE 2 to 4 MHz */
#define RB_PLL_N 250u       /* VCO 500 MHz, wide range (VCOSEL 0) */
#define RB_PLL_P 2u         /* 250 MHz */
#define RB_PLL_Q 2u
#define RB_PLL_R 2u
#define RB_FLASH_WS 5u /* 210 < HCLK <= 250 MHz at VOS0: 5 WS (ll_utils.c) */
#define RB_STARTUP_SPINS 500000u

static uint32_t rb_rsr_at_boot;

static int rb_wait(volatile uint32_t* reg, uint32_t mask, uint32_t want) {
  for (uint32_t i = 0; i < RB_STARTUP_SPINS; i++) {
    if ((*reg & mask) == want) {
      return 1;
    }
  }
  return 0;
}

/* VOS0 first, then the flash latency, HSE, PLL1, the prescalers and the
 * switch. If HSE (the ST-LINK's MCO) or PLL1 does not start, the board stays
 * on HSI: core_measured in CONFIG shows it and the run is INVALID. */
static void rb_clock_init(void) {
  PWR_VOSCR = PWR_VOS0;
  if (!rb_wait(&PWR_VOSSR, PWR_VOSSR_VOSRDY, PWR_VOSSR_VOSRDY)) {
    return;
  }
  FLASH_ACR = (FLASH_ACR & ~(FLASH_ACR_LATENCY_MASK | FLASH_ACR_WRHIGHFREQ_MASK)) | RB_FLASH_WS |
              FLASH_ACR_WRHIGHFREQ_2 | FLASH_ACR_PRFTEN;
  if (!rb_wait(&FLASH_ACR, FLASH_ACR_LATENCY_MASK, RB_FLASH_WS)) {
    return;
  }
  RCC_CR |= RCC_CR_HSEBYP | RCC_CR_HSEEXT;
  RCC_CR |= RCC_CR_HSEON;
  if (!rb_wait(&RCC_CR, RCC_CR_HSERDY, RCC_CR_HSERDY)) {
    return;
  }
  RCC_PLL1CFGR = RCC_PLL1CFGR_SRC_HSE | RCC_PLL1CFGR_RGE_2_4 | (RB_PLL_M << 8) | RCC_PLL1CFGR_PEN;
  RCC_PLL1DIVR =
      (RB_PLL_N - 1u) | ((RB_PLL_P - 1u) << 9) | ((RB_PLL_Q - 1u) << 16) | ((RB_PLL_R - 1u) << 24);
  RCC_CR |= RCC_CR_PLL1ON;
  if (!rb_wait(&RCC_CR, RCC_CR_PLL1RDY, RCC_CR_PLL1RDY)) {
    return;
  }
  /* HPRE (3:0), PPRE1 (6:4), PPRE2 (10:8), PPRE3 (14:12): all /1. */
  RCC_CFGR2 &= ~0x7777u;
  RCC_CFGR1 = (RCC_CFGR1 & ~0x7u) | 0x3u; /* SW 11: PLL1 */
  (void)rb_wait(&RCC_CFGR1, 0x7u << 3, 0x3u << 3);
}

static void rb_icache_init(void) {
  (void)rb_wait(&ICACHE_SR, ICACHE_SR_BUSYF, 0u); /* the reset invalidation */
  ICACHE_CR |= ICACHE_CR_EN;
}

static uint32_t rb_core_from_registers(void);

/* PCLK1 = HCLK / PPRE1 (CFGR2 6:4; 0xx /1, 100 /2 ... 111 /16). */
static uint32_t rb_pclk1_from_registers(void) {
  const uint32_t hclk = rb_core_from_registers();
  const uint32_t ppre1 = (RCC_CFGR2 >> 4) & 0x7u;
  return (ppre1 & 0x4u) ? hclk >> ((ppre1 & 0x3u) + 1u) : hclk;
}

static void rb_uart_init(void) {
  RCC_AHB2ENR |= 1u << 3;   /* GPIODEN */
  RCC_APB1LENR |= 1u << 18; /* USART3EN */
  (void)RCC_APB1LENR;
  RCC_CCIPR1 &= ~(0x7u << 6); /* USART3SEL 000: PCLK1 */
  /* PD8 (TX), PD9 (RX): alternate function 7, very high speed, pull-up on RX. */
  GPIO_MODER(GPIOD_BASE) = (GPIO_MODER(GPIOD_BASE) & ~(0xFu << 16)) | (0xAu << 16);
  GPIO_OSPEEDR(GPIOD_BASE) |= 0xFu << 16;
  GPIO_PUPDR(GPIOD_BASE) = (GPIO_PUPDR(GPIOD_BASE) & ~(0xFu << 16)) | (0x1u << 18);
  GPIO_AFRH(GPIOD_BASE) = (GPIO_AFRH(GPIOD_BASE) & ~0xFFu) | 0x77u;
  /* 16x oversampling, PRESC 0: BRR = kernel clock / baud, rounded, from the
   * clock the registers say PCLK1 runs at. */
  USART_CR1 = 0;
  USART_BRR = (rb_pclk1_from_registers() + RB_UART_BAUD / 2u) / RB_UART_BAUD;
  USART_CR1 = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE;
}

static void rb_timer_init(uint32_t base) {
  TIM_CR1(base) = 0;
  TIM_PSC(base) = 0;
  TIM_ARR(base) = 0xFFFFu;
  TIM_CCMR1(base) = 0; /* CC1 frozen output compare: the flag only, no pin */
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
  RCC_APB1LENR |= (1u << 0) | (1u << 1) | (1u << 3); /* TIM2EN, TIM3EN, TIM5EN */
  (void)RCC_APB1LENR;
  rb_timer_init(TIM2_BASE);
  rb_timer_init(TIM3_BASE);
  rb_timer_init(TIM5_BASE);
  NVIC_ICER(TIM2_IRQN) = NVIC_BIT(TIM2_IRQN);
  NVIC_IPR(TIM2_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICER(TIM3_IRQN) = NVIC_BIT(TIM3_IRQN);
  NVIC_IPR(TIM3_IRQN) = RB_PRIO_BYTE(RB_IRQ_PRIO);
  NVIC_ICER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
}

_Static_assert(RB_EVENT_HZ == RB_CORE_HZ, "event_clock=core: the event timer counts core cycles");
_Static_assert(RB_EVENT_PERIOD < RB_EVENT_MASK / 2u, "the event period must be far below the wrap");
_Static_assert(RB_ZLI_HZ == RB_CORE_HZ, "zero_latency_irq's timer counts core cycles");

void rb_board_console_init(void) {
  rb_rsr_at_boot = RCC_RSR;
  RCC_RSR |= RCC_RSR_RMVF;
  rb_clock_init();
  rb_icache_init();
  rb_uart_init();
}

void rb_board_init(void) {
  rb_counters_init();
}

int rb_board_getc(void) {
  const uint32_t isr = USART_ISR;
  if (isr & USART_ISR_ORE) {
    USART_ICR = USART_ICR_ORECF;
    return -1;
  }
  return (isr & USART_ISR_RXNE) ? (int)(USART_RDR & 0xFFu) : -1;
}

uint32_t rb_board_idcode(void) {
  return RB_REG32(0x44024000u); /* DBGMCU_IDCODE (stm32h563xx.h DBGMCU_BASE) */
}

void rb_board_write(const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    while (!(USART_ISR & USART_ISR_TXE)) {
    }
    USART_TDR = (uint8_t)s[i];
  }
  while (!(USART_ISR & USART_ISR_TC)) {
  }
}

/* ---- the test timer: TIM2 CC1, the event time kept in CCR1 ---------------- */

void rb_event_start(void) {
  NVIC_ICER(TIM2_IRQN) = NVIC_BIT(TIM2_IRQN);
  TIM_CCR1(TIM2_BASE) = (rb_event_now() + RB_EVENT_PERIOD) & RB_EVENT_MASK;
  rb_tim_irq_arm(TIM2_BASE, TIM2_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_event_stop(void) {
  rb_tim_irq_stop(TIM2_BASE, TIM2_IRQN, TIM_SR_CC1IF);
}

void rb_event_resync(void) {}

void TIM2_IRQHandler(void) {
  const uint32_t now = rb_event_now();
  rb_event_irq(RB_TIM_CC1_NEXT(TIM2_BASE, now, RB_EVENT_PERIOD, RB_EVENT_MASK), now);
}

/* ---- empty interrupts: TIM3's update -------------------------------------- */

void rb_empty_start(void) {
  rb_tim_up_start(TIM3_BASE, TIM3_IRQN);
}

void rb_empty_stop(void) {
  rb_tim_irq_stop(TIM3_BASE, TIM3_IRQN, TIM_SR_UIF);
}

volatile uint32_t rb_empty_irqs;

void TIM3_IRQHandler(void) {
  TIM_SR(TIM3_BASE) = ~TIM_SR_UIF;
  rb_empty_irqs++;
}

/* ---- zero_latency_irq: TIM5 CC1 ------------------------------------------- */

void rb_zli_start(uint32_t level) {
  NVIC_ICER(TIM5_IRQN) = NVIC_BIT(TIM5_IRQN);
  NVIC_IPR(TIM5_IRQN) = RB_PRIO_BYTE(level);
  TIM_CCR1(TIM5_BASE) = (rb_zli_now() + RB_ZLI_PERIOD) & RB_ZLI_MASK;
  rb_tim_irq_arm(TIM5_BASE, TIM5_IRQN, TIM_DIER_CC1IE, TIM_SR_CC1IF);
}

void rb_zli_stop(void) {
  rb_tim_irq_stop(TIM5_BASE, TIM5_IRQN, TIM_SR_CC1IF);
}

void TIM5_IRQHandler(void) {
  const uint32_t now = rb_zli_now();
  rb_zli_irq(RB_TIM_CC1_NEXT(TIM5_BASE, now, RB_ZLI_PERIOD, RB_ZLI_MASK), now);
}

/* ---- facts ----------------------------------------------------------------- */

/* HCLK from the registers: SWS (CFGR1 5:3) 0 HSI (64 MHz >> HSIDIV), 1 CSI
 * (4 MHz), 2 HSE, 3 PLL1 (source / M x N / P, no fractional part), then
 * HPRE (CFGR2 3:0; 0xxx /1, 1000 /2 ... 1111 /512). 0 when not readable. */
static uint32_t rb_core_from_registers(void) {
  const uint32_t hsi = RB_HSI_HZ >> ((RCC_CR >> RCC_CR_HSIDIV_POS) & 0x3u);
  uint32_t sysclk;
  switch ((RCC_CFGR1 >> 3) & 0x7u) {
    case 0:
      sysclk = hsi;
      break;
    case 1:
      sysclk = 4000000u;
      break;
    case 2:
      sysclk = RB_HSE_HZ;
      break;
    case 3: {
      const uint32_t cfg = RCC_PLL1CFGR;
      const uint32_t divr = RCC_PLL1DIVR;
      const uint32_t m = (cfg >> 8) & 0x3Fu;
      const uint32_t n = (divr & 0x1FFu) + 1u;
      const uint32_t p = ((divr >> 9) & 0x7Fu) + 1u;
      const uint32_t src = (cfg & 3u) == 1u   ? hsi
                           : (cfg & 3u) == 2u ? 4000000u
                           : (cfg & 3u) == 3u ? RB_HSE_HZ
                                              : 0u;
      if (m == 0u || src == 0u || (cfg & RCC_PLL1CFGR_FRACEN)) {
        return 0;
      }
      sysclk = (uint32_t)(((uint64_t)src / m) * n / p);
      break;
    }
    default:
      return 0;
  }
  const uint32_t hpre = RCC_CFGR2 & 0xFu;
  static const uint16_t ahb_div[8] = {2, 4, 8, 16, 64, 128, 256, 512};
  return (hpre & 0x8u) ? sysclk / ahb_div[hpre & 0x7u] : sysclk;
}

/* TIM2's clock: PCLK1 when APB1 is undivided (the configuration here);
 * with a divider and TIMPRE 0, twice PCLK1 (RM0481's RCC clock tree, not
 * re-read through the search tool); TIMPRE 1 is not decoded: 0 (n/a). */
static uint32_t rb_event_from_registers(void) {
  const uint32_t ppre1 = (RCC_CFGR2 >> 4) & 0x7u;
  const uint32_t pclk1 = rb_pclk1_from_registers();
  if (!(ppre1 & 0x4u)) {
    return pclk1;
  }
  return (RCC_CFGR1 & RCC_CFGR1_TIMPRE) ? 0u : pclk1 * 2u;
}

void rb_board_read_facts(struct rb_board_facts* facts) {
  facts->core_measured_hz = rb_core_from_registers();
  facts->irq_measured_hz = rb_event_from_registers();
  const uint32_t rsr = rb_rsr_at_boot;
  facts->reset_flags = rsr;
  facts->has_reset_flags = 1;
  /* RCC_RSR: LPWR 31, WWDG 30, IWDG 29, SFT 28, BOR 27 (also set at power-on:
   * the H5 has no separate POR flag), PIN 26; specific causes first. */
  if (rsr & (1u << 31)) {
    facts->reset_cause = "lpwr";
  } else if (rsr & (1u << 30)) {
    facts->reset_cause = "wwdg";
  } else if (rsr & (1u << 29)) {
    facts->reset_cause = "iwdg";
  } else if (rsr & (1u << 28)) {
    facts->reset_cause = "sw";
  } else if (rsr & (1u << 27)) {
    facts->reset_cause = "bor";
  } else if (rsr & (1u << 26)) {
    facts->reset_cause = "pin";
  } else {
    facts->reset_cause = 0;
  }
  const uint32_t acr = FLASH_ACR;
  facts->flash_ws = (int)(acr & FLASH_ACR_LATENCY_MASK);
  facts->icache = (ICACHE_CR & ICACHE_CR_EN) ? 1 : 0;
  facts->dcache = -1; /* not read by this board */
  facts->prefetch = (acr & FLASH_ACR_PRFTEN) ? 1 : 0;
}

/* Edges (rb_board.h; docs/firmware.md, "Edges"): EV is PA0 in alternate
 * function 1, TIM2_CH1 (the STM32H563 datasheet's alternate function
 * table), TIM2 CC1 being the event timer: "active on match" (OC1M = 0001)
 * sets it at the compare match, "force inactive" (0100) and "force active"
 * (0101) as on the STM32F4 (OC1M bit 3, CCMR1 bit 16, stays 0). MK is PD14
 * and TK PD15, push-pull outputs written through BSRR. Which header each
 * pin reaches on the NUCLEO-H563ZI is not checked against its user manual
 * here, nor is a board wired. */
#define GPIOA_BASE 0x42020000u
#define GPIO_AFRL(b) RB_REG32((b) + 0x20u)
#define GPIO_BSRR(b) RB_REG32((b) + 0x18u)
#define RB_EDGE_MK_PIN 14u
#define RB_EDGE_TK_PIN 15u

void rb_board_edge_init(void) {
  RCC_AHB2ENR |= (1u << 0) | (1u << 3); /* GPIOAEN, GPIODEN */
  (void)RCC_AHB2ENR;
  GPIO_BSRR(GPIOD_BASE) = (1u << (RB_EDGE_MK_PIN + 16u)) | (1u << (RB_EDGE_TK_PIN + 16u));
  GPIO_OSPEEDR(GPIOD_BASE) |= (3u << (2u * RB_EDGE_MK_PIN)) | (3u << (2u * RB_EDGE_TK_PIN));
  GPIO_MODER(GPIOD_BASE) =
      (GPIO_MODER(GPIOD_BASE) & ~((3u << (2u * RB_EDGE_MK_PIN)) | (3u << (2u * RB_EDGE_TK_PIN)))) |
      (1u << (2u * RB_EDGE_MK_PIN)) | (1u << (2u * RB_EDGE_TK_PIN));
  TIM_CCMR1(TIM2_BASE) = (TIM_CCMR1(TIM2_BASE) & ~TIM_OC1M_MASK) | TIM_OC1M_FORCE_LOW;
  TIM_CCER(TIM2_BASE) |= 1u; /* CC1E: OC1 drives the pin, active high */
  GPIO_OSPEEDR(GPIOA_BASE) |= 3u;
  GPIO_AFRL(GPIOA_BASE) = (GPIO_AFRL(GPIOA_BASE) & ~0xFu) | 1u; /* AF1: TIM2_CH1 */
  GPIO_MODER(GPIOA_BASE) = (GPIO_MODER(GPIOA_BASE) & ~3u) | 2u;
}

#define RB_EDGE_TIM TIM2_BASE
#define RB_EDGE_PIN_SET GPIO_BSRR(GPIOD_BASE)
#include "rb_edge_oc1.h"
