#pragma once
// parse_raw16's widest path: a RAW line of at most 128 bytes read with two
// 64-byte loads, classified byte by byte into masks (digits, commas, bars,
// hex letters, control bytes), checked against the layout of a line whose
// values all have one width (raw16_shape.h), and converted with one byte
// permutation. Needs AVX-512 BW, VL and VBMI (Ice Lake, Zen 4 and later);
// decided once at start-up. Anything it does not take is left to the SSE
// path in line.cpp.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protocol/line.h"

namespace rb::protocol::detail {

// Whether parse_raw16 uses this path: true when the CPU can run it, unless
// the environment has RTOSBENCH_SIMD=avx2 or =sse, or use_raw16_avx512(false)
// turned it off. (A plain load per line.)
extern bool raw16_avx512_on;
inline bool raw16_avx512_enabled() { return raw16_avx512_on; }

// Turns the path on or off (tests, to check the narrower paths on a machine
// that has AVX-512); returns whether it is on afterwards (never on a CPU
// without it). Not thread-safe: call before verifying.
bool use_raw16_avx512(bool on);

// For a line parse_raw16 would take whose values all have one width of 1 to
// 4 digits (at most min(max, 16) of them), a first index of at most 8 digits
// and a seq of at most 8: fills `r` and `out` as parse_raw16 does and returns
// true. Returns false for every other line, having changed nothing the caller
// keeps (out beyond what a taken line writes is scratch). Only call when
// raw16_avx512_enabled().
bool parse_raw16_avx512(std::string_view line, uint16_t* out, size_t max, Raw16& r);

// parse_raw16_avx512 for Raw16Reader: a line whose commas and bars are where
// one of the `count` layouts has them is read by it; any other line the path
// takes is worked out whole and its layout replaces layouts[next] (next then
// moves on, round the `count` slots), or the matching layout when only the
// AVX2 path had worked that one out.
bool read_raw16_avx512(Raw16Layout* layouts, size_t count, size_t& next, std::string_view line,
                       uint16_t* out, size_t max, Raw16& r);

}  // namespace rb::protocol::detail
