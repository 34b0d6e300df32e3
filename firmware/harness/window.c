/* The measurement windows: every task-side series is timed by one of these
 * routines, and the ruler runs the same routines with empty operations, so a
 * series and its baseline are the same machine code.
 *
 * Each routine is `noinline` and receives everything it needs as arguments
 * (operation pointers and IDs in registers). Between its two counter reads
 * there is nothing but the call(s): for rb_window1* (and
 * rb_window1_void) one `blx`; for
 * rb_window2 `blx`, the copy of the first result and of the second ID into
 * registers, `blx`. No load, compare or branch of the harness lies between
 * the reads; results are stored after the second read.
 * tests/firmware/window-disasm.sh checks exactly that on the built images.
 * docs/firmware.md ("Measurement windows") lists the instructions. */
#include "rb_harness.h"

/* A volatile asm is a scheduling barrier for GCC: no instruction moves across
 * it. One after the first read and one around the second keep the compiler
 * from scheduling the result stores' address or value loads into the window. */
#define RB_FENCE() __asm volatile("" ::: "memory")

/* Same body for the three one-call windows: only the operation's type (and
 * so what sits in r1 before the first read) differs. */
#define RB_WINDOW1_BODY(call)     \
  uint32_t t0 = rb_counter_now(); \
  RB_FENCE();                     \
  int rc = (call);                \
  RB_FENCE();                     \
  uint32_t t1 = rb_counter_now(); \
  RB_FENCE();                     \
  s->t0 = t0;                     \
  s->t1 = t1;                     \
  s->rc |= rc;                    \
  return t1 - t0

__attribute__((noinline)) uint32_t rb_window1(int id, int (*op)(int), struct rb_stamp* s) {
  RB_WINDOW1_BODY(op(id));
}

__attribute__((noinline)) uint32_t rb_window1_send(int id, uint32_t msg, int (*op)(int, uint32_t),
                                                   struct rb_stamp* s) {
  RB_WINDOW1_BODY(op(id, msg));
}

__attribute__((noinline)) uint32_t rb_window1_recv(int id, uint32_t* msg, int (*op)(int, uint32_t*),
                                                   struct rb_stamp* s) {
  RB_WINDOW1_BODY(op(id, msg));
}

/* The one-call window for a void(void) operation (the port's yield): the
 * operation's pointer arrives in r0 and nothing is passed to it; between the
 * reads the same single `blx` as rb_window1, so ruler_loop is its baseline. */
__attribute__((noinline)) void rb_window1_void(void (*op)(void), struct rb_stamp* s) {
  uint32_t t0 = rb_counter_now();
  RB_FENCE();
  op();
  RB_FENCE();
  uint32_t t1 = rb_counter_now();
  RB_FENCE();
  s->t0 = t0;
  s->t1 = t1;
}

/* The heap windows: size in and pointer out (rb_window1_alloc), pointer in
 * (rb_window1_free). Between the reads one `blx`, as in rb_window1; only
 * the argument's and the result's types differ (the pointer is stored after
 * the second read). */
__attribute__((noinline)) uint32_t rb_window1_alloc(uint32_t bytes, void* (*op)(uint32_t),
                                                    struct rb_stamp_ptr* s) {
  uint32_t t0 = rb_counter_now();
  RB_FENCE();
  void* p = op(bytes);
  RB_FENCE();
  uint32_t t1 = rb_counter_now();
  RB_FENCE();
  s->t0 = t0;
  s->t1 = t1;
  s->ptr = p;
  return t1 - t0;
}

__attribute__((noinline)) uint32_t rb_window1_free(void* block, int (*op)(void*),
                                                   struct rb_stamp* s) {
  RB_WINDOW1_BODY(op(block));
}

int rb_window2_rc;

__attribute__((noinline)) uint32_t rb_window2(int ida, int (*a)(int), int idb, int (*b)(int)) {
  uint32_t t0 = rb_counter_now();
  RB_FENCE();
  int ra = a(ida);
  int rb = b(idb);
  RB_FENCE();
  uint32_t t1 = rb_counter_now();
  RB_FENCE();
  rb_window2_rc |= ra | rb;
  return t1 - t0;
}
