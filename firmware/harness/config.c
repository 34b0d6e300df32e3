/* CONFIG: every condition the firmware knows or can read back itself
 * (docs/protocol.md section 3). Printed by ctl after the kernel started, so
 * the interrupt priorities read back are the ones the kernel configured. */
#include "cm4_regs.h"
#include "rb_harness.h"

struct rb_board_facts rb_facts;

void rb_config_emit(void) {
  const uint32_t caps = rbp_port.caps;

  rb_rec_begin("CONFIG");
  rb_rec_kv_u32("core", RB_CORE_HZ);
  if (rb_facts.core_measured_hz != 0u) {
    rb_rec_kv_u32("core_measured", rb_facts.core_measured_hz);
  } else {
    rb_rec_kv("core_measured", "n/a");
  }
  rb_rec_kv_u32("tick", (caps & RBP_HAS_TASKS) ? RB_CFG_TICK_HZ : 0u);
  rb_rec_kv_u32("preempt", (caps & RBP_HAS_PREEMPTION) ? 1u : 0u);
  rb_rec_kv_u32("slicing", (caps & RBP_HAS_TIME_SLICE) ? 1u : 0u);
  rb_rec_kv_u32("fpu", RB_CFG_FPU_CONTEXT);
  rb_rec_kv_u32("ramfunc", RB_CFG_RAMFUNC);
  rb_rec_kv_u32("tickless", RB_CFG_TICKLESS);
  rb_rec_kv("board", RB_CFG_BOARD);
  rb_rec_kv("port", RB_CFG_PORT);
  rb_rec_end();

  rb_rec_begin("CONFIG");
  rb_rec_kv("kernel", rbp_port.kernel);
  rb_rec_kv("kernel_version", RB_CFG_KERNEL_VERSION);
  rb_rec_kv("kernel_commit", RB_CFG_KERNEL_COMMIT);
  rb_rec_kv("port_variant", RB_CFG_PORT_VARIANT);
  static const char unset[] = "unset"; /* a port that sets neither */
  rb_rec_kv("checks", rbp_port.checks ? rbp_port.checks : unset);
  rb_rec_kv("lookup", rbp_port.lookup ? rbp_port.lookup : unset);
  rb_rec_kv("compiler", __VERSION__);
  rb_rec_kv("opt", RB_CFG_OPT);
  rb_rec_kv("harness", RB_CFG_HARNESS_HASH);
  rb_rec_kv("nonce", RB_CFG_NONCE);
  rb_rec_end();

  rb_rec_begin("CONFIG");
  rb_rec_kv("counter", RB_COUNTER_NAME);
  rb_rec_kv("unit", RB_COUNTER_UNIT);
  rb_rec_kv_u32("debugger", rb_boot_dhcsr & 1u);
  rb_rec_kv_hex("dhcsr", rb_boot_dhcsr);
  rb_rec_kv("reset_cause", rb_facts.reset_cause);
  if (rb_facts.has_reset_flags) {
    rb_rec_kv_hex("rcc_csr", rb_facts.reset_flags);
  } else {
    rb_rec_kv("rcc_csr", "n/a");
  }
  rb_rec_kv_int("flash_ws", rb_facts.flash_ws);
  rb_rec_kv_int("icache", rb_facts.icache);
  rb_rec_kv_int("dcache", rb_facts.dcache);
  rb_rec_kv_int("prefetch", rb_facts.prefetch);
  rb_rec_kv_hex("fpccr", FPU_FPCCR);
  rb_rec_kv("start", rb_start_kind);
  rb_rec_kv_u32("baud", RB_UART_BAUD);
  rb_rec_kv_u32("hse", RB_HSE_HZ);
  rb_rec_kv_hex("idcode", rb_board_idcode());
  rb_rec_end();

  rb_rec_begin("CONFIG");
  rb_rec_kv_u32("warmup", RB_CFG_WARMUP);
  rb_rec_kv_u32("samples", RB_CFG_SAMPLES);
#if RB_CFG_BUF_SAMPLES < RB_CFG_SAMPLES
  /* A board whose RAM caps every test's samples (RB_BOARD_SAMPLES_CAP) lists
   * an override for every test, more than one record holds: a new CONFIG
   * record after every RB_CFG_OVERRIDES_PER_RECORD tests. */
#define RB_CFG_OVERRIDES_PER_RECORD 6u
  uint32_t listed = 0;
#endif
  for (uint32_t i = 0; i < rb_test_count; i++) {
    const struct rb_test* t = &rb_tests[i];
    if (!t->enabled) {
      continue;
    }
    if (t->samples != RB_CFG_SAMPLES) {
      rb_rec_text(",samples.");
      rb_rec_text(t->name);
      rb_rec_text("=");
      rb_rec_u32(t->samples);
    }
    if (t->warmup != RB_CFG_WARMUP) {
      rb_rec_text(",warmup.");
      rb_rec_text(t->name);
      rb_rec_text("=");
      rb_rec_u32(t->warmup);
    }
#if RB_CFG_BUF_SAMPLES < RB_CFG_SAMPLES
    if (++listed % RB_CFG_OVERRIDES_PER_RECORD == 0u) {
      rb_rec_end();
      rb_rec_begin("CONFIG");
    }
#endif
  }
  rb_rec_kv_u32("stack_words", RB_STACK_WORDS);
  rb_rec_kv_u32("irq_prio", RB_PRIO_LEVEL(NVIC_IPR(RB_TEST_IRQN)));
  rb_rec_kv_u32("tick_prio", RB_PRIO_LEVEL(SCB_SHPR3 >> 24));
  rb_rec_kv_u32("pendsv_prio", RB_PRIO_LEVEL(SCB_SHPR3 >> 16));
  rb_rec_end();

  rb_rec_begin("CONFIG");
  rb_rec_kv("irq_source", RB_EVENT_NAME);
  rb_rec_kv_u32("irq_hz", RB_EVENT_HZ);
  if (rb_facts.irq_measured_hz != 0u) {
    rb_rec_kv_u32("irq_hz_measured", rb_facts.irq_measured_hz);
  } else {
    rb_rec_kv("irq_hz_measured", "n/a");
  }
  rb_rec_kv("event_clock", RB_EVENT_CLOCK);
  rb_rec_kv("irq_empty", RB_EMPTY_NAME);
  rb_rec_kv_u32("irq_period_ticks", RB_EVENT_PERIOD);
  rb_rec_kv_u32("crit_ticks", RB_CRIT_TICKS);
  rb_rec_kv("tests", RB_CFG_TESTS);
  rb_rec_end();

  rb_rec_begin("CONFIG");
  rb_rec_kv("edges", RB_CFG_EDGES ? "on" : "off");
#if RB_CFG_EDGES
  /* The analyzer's channels by role (board.cmake RB_BOARD_EDGE_*), and
   * whether they are pins at all (emulated: writes QEMU ignores). */
  rb_rec_kv("edge_mk", RB_CFG_EDGE_MK);
  rb_rec_kv("edge_ev", RB_CFG_EDGE_EV);
  rb_rec_kv("edge_tk", RB_CFG_EDGE_TK);
  rb_rec_kv("edge_pins", RB_CFG_EDGE_PINS);
#endif
  rb_rec_end();
}
