#pragma once
// Small integer text conversions the protocol needs: no locale, no
// exceptions, no allocation.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rb {

// Parses the whole of `s` as an unsigned decimal integer: one or more ASCII
// digits, nothing else (no sign, no spaces). nullopt when `s` is empty, holds
// any other byte, or the value does not fit in 64 bits.
inline std::optional<uint64_t> parse_u64(std::string_view s) {
  if (s.empty() || s.size() > 20 || s.front() < '0' || s.front() > '9') return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Writes `v` as 8 lowercase hex digits into out[0..7].
inline void format_hex8_lower(uint32_t v, char* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 7; i >= 0; --i) {
    out[i] = kHex[v & 15u];
    v >>= 4;
  }
}

}  // namespace rb
