/* The test firmware's harness tests, in the table format of
 * firmware/harness/rb_tests.h (src/catalog reads it): the tests and series
 * its canned log writes (each against ruler_loop, `@ruler_loop`). */
#define RB_TEST_TABLE(X)                                      \
  X(ruler, 0, RB_PACE_FREE, "ruler_read_pair ruler_loop")     \
  X(api_overhead, 0, RB_PACE_FREE, "api_overhead@ruler_loop") \
  X(wake_latency, 0, RB_PACE_FREE, "wake_latency@ruler_loop") \
  X(round_trip, 0, RB_PACE_FREE, "round_trip@ruler_loop")     \
  X(irq_latency, 0, RB_PACE_EVENT, "irq_entry@ruler_loop event_to_task@ruler_loop")
