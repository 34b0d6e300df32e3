#include "util/utf8.h"

#include <fmt/core.h>

namespace rb {

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    }
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      const unsigned char b = p[i + k];
      if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) ok = false;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

size_t terminal_control_at(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  const unsigned u = at(i);
  if (u < 0x20 || u == 0x7F) return i < s.size() ? 1 : 0;
  if (u == 0xC2 && at(i + 1) >= 0x80 && at(i + 1) < 0xA0) return 2;
  if (u == 0xE2 && at(i + 1) == 0x80 && at(i + 2) >= 0xAA && at(i + 2) <= 0xAE) return 3;
  if (u == 0xE2 && at(i + 1) == 0x81 && at(i + 2) >= 0xA6 && at(i + 2) <= 0xA9) return 3;
  return 0;
}

namespace {

// \x1b, \u{009b}, \u{202e}: the escaped form of the control at v[i] (of `len` bytes).
std::string escaped_control(std::string_view v, size_t i, size_t len) {
  const auto b = [&](size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(v[k])); };
  if (len == 1) return fmt::format("\\x{:02x}", b(i));
  if (len == 2) return fmt::format("\\u{{{:04x}}}", b(i + 1));
  return fmt::format("\\u{{{:04x}}}",
                     ((b(i) & 0x0F) << 12) | ((b(i + 1) & 0x3F) << 6) | (b(i + 2) & 0x3F));
}

}  // namespace

std::string escape_controls(std::string_view s, size_t max, bool keep_layout) {
  const std::string v = valid_utf8(s);
  std::string out;
  size_t i = 0;
  for (; i < v.size() && out.size() < max;) {
    const size_t len = terminal_control_at(v, i);
    if (len == 0 || (keep_layout && (v[i] == '\n' || v[i] == '\t'))) {
      out += v[i++];
    } else {
      out += escaped_control(v, i, len);
      i += len;
    }
  }
  // Never cut a character in two.
  while (i < v.size() && (static_cast<unsigned char>(v[i]) & 0xC0) == 0x80) out += v[i++];
  if (i < v.size()) out += "...";
  return out;
}

std::string terminal_safe(std::string_view s) {
  return escape_controls(s, std::string::npos, true);
}

}  // namespace rb
