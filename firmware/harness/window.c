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

/* round_trip's window holds, besides ctl's rb_window2, one round of the
 * partner lo: lo resumes in its give of BACK, loops, takes PARTNER, gives
 * BACK (which switches back to ctl). Those harness instructions of lo run
 * between ctl's two counter reads, so they must be in the baseline too. Both
 * sides are written once, as the text below, so that the partner's loop
 * (rb_round_partner) and the ruler's copy of it (rb_window_round) are the
 * same instructions in the same registers:
 *
 *   1: movs r0, #PARTNER ; blx a ; str n, [left] ; orr.w rc, rc, r0
 *      movs r0, #BACK    ; blx b ; orr.w rc, rc, r0 ; subs n, n, #1 ; bne 1b
 *
 * `left` receives the rounds left (n) after each take: ctl's pairing check.
 * The registers are fixed (rc r4, n r5, left r6, a r8, b r9; never r7, the
 * frame pointer at -O0), so the encodings are the same in both routines.
 * tests/firmware/window-disasm.py checks that rb_window_round's interior is
 * rb_window2's followed by the partner's loop, rotated to start after its
 * give's return: orr.w subs bne movs blx str orr.w movs blx. */
#define RB_ROUND_TAKE          \
  "movs r0, %[ida]\n\t"        \
  "blx %[a]\n\t"               \
  "str %[n], [%[left]]\n\t"    \
  "orr.w %[rc], %[rc], r0\n\t" \
  "movs r0, %[idb]\n\t"        \
  "blx %[b]\n\t"
#define RB_ROUND_AFTER_GIVE    \
  "orr.w %[rc], %[rc], r0\n\t" \
  "subs %[n], %[n], #1\n\t"

__attribute__((noinline)) int rb_round_partner(uint32_t rounds, int (*a)(int), int (*b)(int),
                                               volatile uint32_t* left) {
  if (rounds == 0u) {
    return RBP_OK;
  }
  register int rc __asm("r4") = RBP_OK;
  register uint32_t n __asm("r5") = rounds;
  register volatile uint32_t* l __asm("r6") = left;
  register int (*ra)(int) __asm("r8") = a;
  register int (*rb)(int) __asm("r9") = b;
  __asm volatile(
      "1:\n\t" RB_ROUND_TAKE RB_ROUND_AFTER_GIVE "bne 1b\n\t"
      : [rc] "+r"(rc), [n] "+r"(n)
      : [left] "r"(l), [a] "r"(ra), [b] "r"(rb), [ida] "n"(RB_S_PARTNER), [idb] "n"(RB_S_BACK)
      : "r0", "r1", "r2", "r3", "r12", "lr", "cc", "memory");
  return rc;
}

int rb_window_round_rc;

/* The ruler's copy of round_trip's window (ruler_round): counter read,
 * rb_window2's interior (blx a; mov r1, r0; mov r0, r2; blx b), then the
 * partner's round as it runs inside ctl's window (from the return of its
 * give: orr.w, subs, bne taken to the next instruction as lo's loops back,
 * movs, blx a, str, orr.w, movs, blx b), counter read. With the empty
 * operation as a and b: four calls, as the round's four kernel calls. */
__attribute__((noinline)) uint32_t rb_window_round(int (*a)(int), int (*b)(int),
                                                   volatile uint32_t* left) {
  register int r0v __asm("r0") = RB_S_PARTNER;
  register int r1v __asm("r1") = 0;
  register int r2v __asm("r2") = RB_S_BACK;
  register int rc __asm("r4") = RBP_OK;
  register uint32_t n __asm("r5") = 2u; /* subs leaves 1: the bne is taken */
  register volatile uint32_t* l __asm("r6") = left;
  register int (*ra)(int) __asm("r8") = a;
  register int (*rb)(int) __asm("r9") = b;
  uint32_t t0 = rb_counter_now();
  RB_FENCE();
  __asm volatile(
      "blx %[a]\n\t"
      "mov r1, r0\n\t"
      "mov r0, r2\n\t"
      "blx %[b]\n\t" RB_ROUND_AFTER_GIVE
      "bne 1f\n"
      "1:\n\t" RB_ROUND_TAKE
      : [rc] "+r"(rc), [n] "+r"(n), "+r"(r0v), "+r"(r1v), "+r"(r2v)
      : [left] "r"(l), [a] "r"(ra), [b] "r"(rb), [ida] "n"(RB_S_PARTNER), [idb] "n"(RB_S_BACK)
      : "r3", "r12", "lr", "cc", "memory");
  RB_FENCE();
  uint32_t t1 = rb_counter_now();
  RB_FENCE();
  rb_window_round_rc |= rc | r0v | r1v;
  return t1 - t0;
}
