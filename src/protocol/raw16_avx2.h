#pragma once
// parse_raw16's AVX2 path (Haswell, Zen and later), used by Raw16Reader
// where the AVX-512 path is not: the same layouts, four 32-byte loads to
// classify a line, values of 1 to 3 digits converted in groups of four.
// Decided once at start-up; anything it does not take goes to the SSE path.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protocol/line.h"

namespace rb::protocol::detail {

// Whether Raw16Reader uses this path (when the AVX-512 one is off): true
// when the CPU can run it, unless the environment has RTOSBENCH_SIMD=sse or
// use_raw16_avx2(false) turned it off.
extern bool raw16_avx2_on;
inline bool raw16_avx2_enabled() { return raw16_avx2_on; }

// Turns the path on or off (tests); returns whether it is on afterwards.
bool use_raw16_avx2(bool on);

// As read_raw16_avx512, for a line of 32 to 128 bytes from whose start 128
// bytes up to `readable_end` can be read, and with max >= 8.
bool read_raw16_avx2(Raw16Layout* layouts, size_t count, size_t& next, std::string_view line,
                     const char* readable_end, uint16_t* out, size_t max, Raw16& r);

}  // namespace rb::protocol::detail
