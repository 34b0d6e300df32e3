/* Port glue of the stand-in kernel (tests/data/run/testfw/ports/minikernel):
 * an idle stack the "kernel" asks the application for, as real ports do. */
#include <stdint.h>

uint32_t minikernel_start(uint32_t seed);
uint32_t testfw_port_start(void);

uint32_t glue_idle_stack[32];

uint32_t testfw_port_start(void) {
  glue_idle_stack[0] = 1u;
  return minikernel_start(glue_idle_stack[0]);
}
