/* Test firmware for the host's end-to-end tests (netduinoplus2 under QEMU).
 * Prints a V2 log (docs/protocol.md) built from deterministic pseudo-random
 * samples, with the RESULT statistics computed here so the host's
 * re-derivation agrees; the TESTFW_MODE_* define bends it into each failure
 * the host must classify. Not a benchmark: nothing here is measured. */
#include <stdint.h>

#if defined(TESTFW_MODE_broken)
#error "testfw: this port is broken on purpose (BUILD_ERROR test)"
#endif

#define USART1_SR (*(volatile uint32_t*)0x40011000u)
#define USART1_DR (*(volatile uint32_t*)0x40011004u)
#define USART1_CR1 (*(volatile uint32_t*)0x4001100Cu)

extern uint32_t _data_load, _data_start, _data_end, _bss_start, _bss_end, _stack_top;
void reset_handler(void);
#if defined(TESTFW_MODE_vanish)
static void fault_handler(void) {
  __asm volatile("udf #1");
}
#else
static void fault_handler(void) {
  for (;;) {
  }
}
#endif

__attribute__((section(".vectors"), used)) static const void* const vectors[16] = {&_stack_top,
                                                                                   reset_handler,
                                                                                   fault_handler,
                                                                                   fault_handler,
                                                                                   fault_handler,
                                                                                   fault_handler,
                                                                                   fault_handler,
                                                                                   0,
                                                                                   0,
                                                                                   0,
                                                                                   0,
                                                                                   fault_handler,
                                                                                   fault_handler,
                                                                                   0,
                                                                                   fault_handler,
                                                                                   fault_handler};

static void put_char(char c) {
  while (!(USART1_SR & 0x80u)) {
  }
  USART1_DR = (uint32_t)(unsigned char)c;
}

static void delay(uint32_t n) {
  for (volatile uint32_t i = 0; i < n; ++i) {
  }
}

static uint32_t crc32c(const char* s, uint32_t len) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < len; ++i) {
    crc ^= (unsigned char)s[i];
    for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return crc ^ 0xFFFFFFFFu;
}

/* One line under construction. */
static char line[700];
static uint32_t line_len;
static uint32_t seq;
static uint32_t lines_written;
static const char* start_kind = "none"; /* CONFIG start=, set by wait_start() */

static void add_str(const char* s) {
  while (*s && line_len < sizeof line - 1) line[line_len++] = *s++;
}
static void add_u32(uint32_t v) {
  char tmp[11];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v);
  while (n) line[line_len++] = tmp[--n];
}
static void add_hex8(uint32_t v) {
  for (int i = 7; i >= 0; --i) line[line_len++] = "0123456789abcdef"[(v >> (4 * i)) & 0xFu];
}
static void begin_line(const char* record) {
  line_len = 0;
  add_str(record);
}

static void emit_bytes(const char* s, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) put_char(s[i]);
}

/* Ends a protocol line: appends |seq|crc, then writes it. */
static void end_line(void) {
  add_str("|");
  add_u32(seq++);
  uint32_t crc = crc32c(line, line_len);
  add_str("|");
  add_hex8(crc);
  ++lines_written;
#if defined(TESTFW_MODE_corrupt)
  /* A bit flipped on the wire in the 9th line: the crc no longer matches. */
  if (lines_written == 9) line[4] ^= 0x01;
#endif
#if defined(TESTFW_MODE_truncated)
  /* Bytes lost in transit: line 9 is cut in the middle and lines 10-11 never
   * arrive, so line 9's head runs into line 12. */
  if (lines_written == 9) {
    emit_bytes(line, line_len / 2);
    return;
  }
  if (lines_written == 10 || lines_written == 11) return;
#endif
#if defined(TESTFW_MODE_vanish)
  /* An undefined instruction whose HardFault handler faults again: the core
   * locks up, QEMU aborts mid-stream and its pty disappears under the reader. */
  if (lines_written == 12) {
    delay(30000000); /* let the host read the first lines */
    __asm volatile("udf #0" ::: "memory");
  }
#endif
  emit_bytes(line, line_len);
  put_char('\r');
  put_char('\n');
  delay(TESTFW_LINE_DELAY);
}

static uint32_t rng = 12345u;
static uint32_t next_rand(void) {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

static uint32_t samples[TESTFW_SAMPLES];
static uint32_t sorted[TESTFW_SAMPLES];

static uint32_t rank_value(uint32_t p_num, uint32_t p_den, uint32_t n) {
  uint32_t rank = (p_num * n + p_den - 1u) / p_den;
  if (rank < 1u) rank = 1u;
  if (rank > n) rank = n;
  return sorted[rank - 1u];
}

/* RAW lines then the RESULT of one series of n samples around `base`. */
/* Returns the median. */
static uint32_t series(const char* name, uint32_t base, uint32_t spread, uint32_t ruler_base) {
  const uint32_t n = TESTFW_SAMPLES;
  uint64_t sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    samples[i] = base + next_rand() % spread;
    sum += samples[i];
  }
  for (uint32_t first = 0; first < n; first += 16u) {
    begin_line("RAW,");
    add_str(name);
    add_str(",");
    add_u32(first);
    for (uint32_t i = first; i < n && i < first + 16u; ++i) {
      add_str(",");
      add_u32(samples[i]);
    }
    end_line();
  }
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t v = samples[i], j = i;
    while (j > 0 && sorted[j - 1] > v) {
      sorted[j] = sorted[j - 1];
      --j;
    }
    sorted[j] = v;
  }
  begin_line("RESULT,");
  add_str(name);
  add_str(",n=");
  add_u32(n);
  add_str(",hz=1000000000");
  add_str(",min_ticks=");
  add_u32(sorted[0]);
  add_str(",median_ticks=");
  add_u32(rank_value(50, 100, n));
  add_str(",p90_ticks=");
  add_u32(rank_value(90, 100, n));
  add_str(",p99_ticks=");
  add_u32(rank_value(99, 100, n));
  add_str(",max_ticks=");
  add_u32(sorted[n - 1]);
  add_str(",avg_ticks=");
  add_u32((uint32_t)(sum / n));
  if (ruler_base) {
    add_str(",base_ticks=");
    add_u32(ruler_base);
  }
  end_line();
  return rank_value(50, 100, n);
}

static void log_all(void) {
  begin_line("BEGIN,RTOS_BENCH_V2");
  end_line();
  begin_line("CONFIG,core=168000000,core_measured=n/a,tick=");
  add_u32(RB_TICK_HZ);
  add_str(",preempt=1,slicing=0,fpu=");
  add_u32(RB_FPU_CONTEXT);
  add_str(",ramfunc=");
  add_u32(RB_RAMFUNC);
  add_str(",tickless=");
  add_u32(RB_TICKLESS);
  add_str(",edges=" RB_EDGES);
  add_str(",compiler=" __VERSION__ ",opt=" RB_OPT);
  end_line();
  begin_line("CONFIG,kernel=testfw,kernel_version=" RB_KERNEL_VERSION
             ",kernel_commit=" RB_KERNEL_COMMIT ",port=" RB_PORT ",board=" RB_BOARD
             ",checks=" RB_CHECKS ",lookup=clz");
  end_line();
  begin_line(
      "CONFIG,harness=0000000000000000,counter=tim2,unit=instructions,debugger=0,"
      "dhcsr=0x00000000,reset_cause=n/a,warmup=");
  add_u32(RB_WARMUP);
  add_str(",samples=");
  add_u32(RB_SAMPLES_CONFIGURED);
  add_str(",samples.all=");
  add_u32(TESTFW_SAMPLES);
  add_str(",nonce=" RB_NONCE ",start=");
  add_str(start_kind);
  end_line();
  begin_line("TEST,ruler");
  end_line();
  series("ruler_read_pair", 2, 1, 0);
  const uint32_t base = series("ruler_loop", 12, 3, 0);
#if defined(TESTFW_MODE_hang)
  for (;;) {
  }
#endif
  begin_line("TEST,api_overhead");
  end_line();
  series("api_overhead", 140, 20, base);
  begin_line("TEST,wake_latency");
  end_line();
  series("wake_latency", 300, 40, base);
  begin_line("TEST,round_trip");
  end_line();
  series("round_trip", 610, 50, base);
  begin_line("TEST,irq_latency");
  end_line();
  begin_line("PHASE,idle,irq=");
  add_u32(TESTFW_SAMPLES);
  add_str(",task=");
#if defined(TESTFW_MODE_badcounters)
  add_u32(TESTFW_SAMPLES - 3u);
  add_str(",bad=3");
#else
  add_u32(TESTFW_SAMPLES);
  add_str(",bad=0");
#endif
  add_str(",status=OK");
  end_line();
  series("irq_entry", 30, 6, base);
  series("event_to_task", 250, 30, base);
  begin_line("NA,tick_overhead,reason=the test firmware has no tick");
  end_line();
  begin_line("END,RTOS_BENCH_V2");
  end_line();
}

#if defined(TESTFW_KERNEL)
uint32_t testfw_port_start(void);
#endif

/* The start handshake as the real firmware does it (docs/protocol.md 1.3):
 * the banner, then a `START` line; with this image's nonce, start=host. */

static void wait_start(void) {
  static const char banner[] =
      "rtosbench-fw: board=" RB_BOARD " port=" RB_PORT " nonce=" RB_NONCE " waiting for START\n";
  static const char want[] = "START " RB_NONCE;
  char got[40];
  uint32_t n = 0;
  USART1_CR1 = (1u << 13) | (1u << 3) | (1u << 2); /* UE, TE, RE */
  for (const char* c = banner; *c; ++c) put_char(*c);
  for (;;) {
    if (!(USART1_SR & 0x20u)) continue; /* RXNE */
    const char c = (char)USART1_DR;
    if (c != '\n') {
      if (n < sizeof got) got[n++] = c;
      continue;
    }
    if (n >= 5 && got[0] == 'S' && got[1] == 'T' && got[2] == 'A' && got[3] == 'R' &&
        got[4] == 'T') {
      uint32_t i = 0;
      while (i < n && i < sizeof want - 1 && got[i] == want[i]) ++i;
      start_kind = (n == sizeof want - 1 && i == n) ? "host" : "manual";
      return;
    }
    n = 0;
  }
}

void reset_handler(void) {
  uint32_t* src = &_data_load;
  for (uint32_t* dst = &_data_start; dst < &_data_end;) *dst++ = *src++;
  for (uint32_t* dst = &_bss_start; dst < &_bss_end;) *dst++ = 0;
#if defined(TESTFW_KERNEL)
  (void)testfw_port_start();
#endif
  wait_start();
  log_all();
  for (;;) {
  }
}
