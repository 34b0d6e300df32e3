/* rbp_largest_request (rb_port.h): the heap test's largest-block figure for
 * a kernel whose allocator has no call for it, by bisection. */
#include "rb_port.h"

uint32_t rbp_largest_request(uint32_t limit, void* (*alloc)(uint32_t bytes),
                             void (*release)(void* block)) {
  uint32_t lo = 0, hi = limit;
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo + 1u) / 2u;
    void* p = alloc(mid);
    if (p != 0) {
      release(p);
      lo = mid;
    } else {
      hi = mid - 1u;
    }
  }
  return lo;
}
