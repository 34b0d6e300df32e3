/* The V2 protocol writer (docs/protocol.md): every protocol record gets
 * `|<seq>|<crc32c>` and LF. Called from one task (ctl) only, never inside a
 * measurement window. */
#include "rb_harness.h"

#define RB_LINE_MAX 480 /* longest record body; the protocol allows 4096 */

static char rb_line[RB_LINE_MAX + 32];
static uint32_t rb_line_len;
static uint32_t rb_seq;

/* CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, bitwise: the output
 * rate is bounded by the UART, not by this loop. */
static uint32_t rb_crc32c(const char* p, uint32_t n) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint32_t i = 0; i < n; i++) {
    crc ^= (uint8_t)p[i];
    for (int b = 0; b < 8; b++) {
      crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
  }
  return crc ^ 0xFFFFFFFFu;
}

void rb_report_init(void) {
  rb_seq = 0;
  rb_line_len = 0;
}

static void rb_append_char(char c) {
  if (rb_line_len >= RB_LINE_MAX) {
    rb_fatal("protocol record longer than the line buffer");
  }
  rb_line[rb_line_len++] = c;
}

void rb_rec_text(const char* s) {
  while (*s) {
    rb_append_char(*s++);
  }
}

/* Values must not contain the protocol's separators or line ends. A
 * key=value field splits at its first '=', so the value of one keeps its '='
 * (opt=-O2 -DX=1 is echoed as built); a positional field (a NA's or a CHECK's
 * name) has no key, so a '=' in it would make one: it becomes '_'. */
static void rb_append_text_value(const char* s, int keep_equals) {
  for (; *s; s++) {
    char c = *s;
    if (c == ',' || c == '|' || c == '\r' || c == '\n' || (c == '=' && !keep_equals)) {
      c = '_';
    }
    rb_append_char(c);
  }
}

static void rb_append_value(const char* s) {
  rb_append_text_value(s, 0);
}

void rb_rec_begin(const char* kind) {
  rb_line_len = 0;
  rb_rec_text(kind);
}

static void rb_append_u64(uint64_t v) {
  char tmp[21];
  int i = 0;
  do {
    tmp[i++] = (char)('0' + (uint32_t)(v % 10u));
    v /= 10u;
  } while (v != 0u);
  while (i > 0) {
    rb_append_char(tmp[--i]);
  }
}

void rb_rec_u32(uint32_t v) {
  char tmp[11];
  int i = 0;
  do {
    tmp[i++] = (char)('0' + v % 10u);
    v /= 10u;
  } while (v != 0u);
  while (i > 0) {
    rb_append_char(tmp[--i]);
  }
}

static void rb_append_hex8(uint32_t v) {
  static const char digits[] = "0123456789abcdef";
  for (int s = 28; s >= 0; s -= 4) {
    rb_append_char(digits[(v >> s) & 0xFu]);
  }
}

static void rb_append_key(const char* key) {
  rb_append_char(',');
  rb_rec_text(key);
  rb_append_char('=');
}

void rb_rec_kv(const char* key, const char* value) {
  rb_append_key(key);
  rb_append_text_value(value ? value : "n/a", 1);
}

void rb_rec_kv_u32(const char* key, uint32_t v) {
  rb_append_key(key);
  rb_rec_u32(v);
}

void rb_rec_kv_u64(const char* key, uint64_t v) {
  rb_append_key(key);
  rb_append_u64(v);
}

void rb_rec_kv_int(const char* key, int v) {
  if (v < 0) {
    rb_rec_kv(key, "n/a");
  } else {
    rb_rec_kv_u32(key, (uint32_t)v);
  }
}

void rb_rec_kv_hex(const char* key, uint32_t v) {
  rb_append_key(key);
  rb_rec_text("0x");
  rb_append_hex8(v);
}

void rb_rec_end(void) {
  rb_append_char('|');
  rb_rec_u32(rb_seq++);
  uint32_t crc = rb_crc32c(rb_line, rb_line_len);
  /* The suffix may use the 32 spare bytes past RB_LINE_MAX. */
  rb_line[rb_line_len++] = '|';
  for (int s = 28; s >= 0; s -= 4) {
    rb_line[rb_line_len++] = "0123456789abcdef"[(crc >> s) & 0xFu];
  }
  rb_line[rb_line_len++] = '\n';
  rb_board_write(rb_line, rb_line_len);
  rb_line_len = 0;
}

void rb_other_line(const char* s) {
  uint32_t n = 0;
  while (s[n]) {
    n++;
  }
  rb_board_write(s, n);
  rb_board_write("\n", 1);
}

void rb_emit_na(const char* name, const char* reason) {
  rb_rec_begin("NA,");
  rb_append_value(name);
  rb_rec_kv("reason", reason);
  rb_rec_end();
}

void rb_emit_check(const char* name, uint32_t rounds, uint32_t pass, uint32_t fail) {
  rb_rec_begin("CHECK,");
  rb_append_value(name);
  rb_rec_kv_u32("rounds", rounds);
  rb_rec_kv_u32("pass", pass);
  rb_rec_kv_u32("fail", fail);
  rb_rec_kv("status", (fail == 0u && pass == rounds) ? "OK" : "FAIL");
  rb_rec_end();
}
