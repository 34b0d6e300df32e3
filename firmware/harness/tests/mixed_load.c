/* mixed_load: wake latency (wake_latency's method and window: ctl gives
 * RB_S_WAKE in rb_window1, hi's t1 after its take returns ends the sample;
 * base ruler_loop) while lower-priority tasks run a fixed mix of kernel calls
 * and computation (seed 000 section 4.3):
 * - lo (3), producer: computes (RB_ML_COMPUTE steps), locks the mutex,
 *   updates a shared word, unlocks, sends the round to the one-slot queue
 *   (empty: no wait), then waits on RB_S_BACK for the consumer;
 * - bg_a (2), consumer: receives, computes, locks, updates, unlocks, counts
 *   one background round and gives RB_S_BACK (lo preempts it).
 * The queue is never full, so no port's way of waiting on a full queue
 * (TencentOS-tiny's port sleeps a tick) shapes the load. RB_S_BACK is
 * round_trip's, empty after it (every give there is taken).
 * ctl sleeps one tick (delay(1)) before every sample, so the background runs
 * for the rest of each tick and is preempted by ctl's wake-up at the tick, in
 * whatever kernel call or computation it is in; then ctl gives to hi.
 *
 * CHECKs: mixed_load_pairing, as wake_latency_pairing (hi stores its round
 * with its t1); mixed_load_background (rounds = samples, warm-up included)
 * fails a sample before which the background completed no round since the
 * previous one, and carries work= (background rounds over the whole test)
 * and bad_msgs= (messages the consumer received out of sequence; each one
 * fails a round too). */
#include "rb_harness.h"

#define RB_ML_COMPUTE 200u
#define RB_ML_STOP 0xFFFFFFFFu

static volatile uint32_t rb_ml_t1;
static volatile uint32_t rb_ml_round;
static uint32_t rb_ml_rounds;
static volatile int rb_ml_rc;
static volatile int rb_ml_stop;
static volatile uint32_t rb_ml_work;   /* background rounds done (consumer) */
static volatile uint32_t rb_ml_badmsg; /* messages out of sequence */
static volatile uint32_t rb_ml_shared; /* updated under the mutex */
static volatile uint32_t rb_ml_sink;

__attribute__((noinline)) static uint32_t rb_ml_compute(uint32_t x, uint32_t iters) {
  for (uint32_t i = 0; i < iters; i++) {
    x = x * 1664525u + 1013904223u;
    __asm volatile("" : "+r"(x)); /* every step is executed */
  }
  return x;
}

static void rb_ml_receiver(void) {
  struct rb_stamp s = {0, 0, RBP_OK};
  for (uint32_t i = 0; i < rb_ml_rounds; i++) {
    (void)rb_window1(RB_S_WAKE, rbp_port.sem_take, &s);
    rb_ml_t1 = s.t1;
    rb_ml_round = i;
  }
  rb_ml_rc = s.rc;
}

static void rb_ml_producer(void) {
  uint32_t i = 0;
  while (!rb_ml_stop) {
    rb_ml_sink = rb_ml_compute(i, RB_ML_COMPUTE);
    rb_check(rbp_port.mutex_lock(RB_M_API), "mixed_load: mutex_lock");
    rb_ml_shared += i;
    rb_check(rbp_port.mutex_unlock(RB_M_API), "mixed_load: mutex_unlock");
    rb_check(rbp_port.queue_send(RB_Q_MSG, i), "mixed_load: queue_send");
    rb_check(rbp_port.sem_take(RB_S_BACK), "mixed_load: sem_take");
    i = (i + 1u) & 0x7FFFFFFFu;
  }
  rb_check(rbp_port.queue_send(RB_Q_MSG, RB_ML_STOP), "mixed_load: queue_send");
}

static void rb_ml_consumer(void) {
  uint32_t expect = 0;
  for (;;) {
    uint32_t m = 0;
    rb_check(rbp_port.queue_receive(RB_Q_MSG, &m), "mixed_load: queue_receive");
    if (m == RB_ML_STOP) {
      break;
    }
    rb_ml_badmsg += m != expect ? 1u : 0u;
    expect = (m + 1u) & 0x7FFFFFFFu;
    rb_ml_sink = rb_ml_compute(m, RB_ML_COMPUTE);
    rb_check(rbp_port.mutex_lock(RB_M_API), "mixed_load: mutex_lock");
    rb_ml_shared ^= m;
    rb_check(rbp_port.mutex_unlock(RB_M_API), "mixed_load: mutex_unlock");
    rb_ml_work++;
    rb_check(rbp_port.sem_give(RB_S_BACK), "mixed_load: sem_give");
  }
}

void rb_test_mixed_load(const struct rb_test* t) {
  const uint32_t n = t->samples;
  const uint32_t w = t->warmup;
  rb_ml_rounds = w + n;
  rb_ml_rc = RBP_OK;
  rb_ml_round = 0xFFFFFFFFu;
  rb_ml_stop = 0;
  rb_ml_work = 0;
  rb_ml_badmsg = 0;
  rb_team_start(RB_T_HI, rb_ml_receiver); /* hi runs now and blocks on RB_S_WAKE */
  rb_team_start(RB_T_LO, rb_ml_producer); /* lo and bg_a run when ctl blocks */
  rb_team_start(RB_T_BG_A, rb_ml_consumer);
  struct rb_stamp s = {0, 0, RBP_OK};
  uint32_t paired = 0;
  uint32_t busy = 0;
  uint32_t prev_work = rb_ml_work;
  for (uint32_t i = 0; i < w + n; i++) {
    rbp_port.delay(1);
    const uint32_t work = rb_ml_work;
    (void)rb_window1(RB_S_WAKE, rbp_port.sem_give, &s);
    const uint32_t d = rb_ml_t1 - s.t0;
    paired += rb_ml_round == i ? 1u : 0u;
    busy += work != prev_work ? 1u : 0u;
    prev_work = work;
    if (i >= w) {
      rb_buf_a[i - w] = d;
    }
  }
  rb_ml_stop = 1;
  rb_team_join(RB_T_HI);
  rb_team_join(RB_T_LO);
  rb_team_join(RB_T_BG_A);
  rb_check(s.rc | rb_ml_rc, "mixed_load: sem give/take");
  rb_quiesce();
  rb_emit_series("mixed_load", rb_buf_a, n, RB_COUNTER_HZ, RB_BASE_LOOP1);
  rb_emit_check("mixed_load_pairing", w + n, paired, w + n - paired);
  const uint32_t bad = (w + n - busy) + rb_ml_badmsg;
  const uint32_t fail = bad > w + n ? w + n : bad;
  rb_rec_begin("CHECK,mixed_load_background");
  rb_rec_kv_u32("rounds", w + n);
  rb_rec_kv_u32("pass", w + n - fail);
  rb_rec_kv_u32("fail", fail);
  rb_rec_kv("status", fail == 0u ? "OK" : "FAIL");
  rb_rec_kv_u32("work", rb_ml_work);
  rb_rec_kv_u32("bad_msgs", rb_ml_badmsg);
  rb_rec_end();
}
