/* The test firmware's stand-in kernel: code, initialised data and zeroed
 * data that the linker keeps, so the map file shows all three kinds. */
#include <stdint.h>

uint32_t minikernel_ticks = 7u;
static uint32_t minikernel_stack[64];

uint32_t minikernel_start(uint32_t seed) {
  for (uint32_t i = 0; i < 64u; ++i) minikernel_stack[i] = seed + i + minikernel_ticks;
  uint32_t h = 0;
  for (uint32_t i = 0; i < 64u; ++i) h = (h ^ minikernel_stack[i]) * 2654435761u;
  minikernel_ticks = h;
  return h;
}
