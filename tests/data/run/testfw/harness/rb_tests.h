/* The test firmware's harness tests, in the table format of
 * firmware/harness/rb_tests.h (src/catalog reads it): the tests and series
 * its canned log writes. */
#define RB_TEST_TABLE(X) \
  X(ruler, 0, RB_PACE_FREE, "ruler_read_pair ruler_loop") \
  X(api_overhead, 0, RB_PACE_FREE, "api_overhead") \
  X(wake_latency, 0, RB_PACE_FREE, "wake_latency") \
  X(round_trip, 0, RB_PACE_FREE, "round_trip") \
  X(irq_latency, 0, RB_PACE_EVENT, "irq_entry event_to_task")
