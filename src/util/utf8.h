#pragma once
// Text taken from a serial capture may hold any bytes; JSON must be UTF-8.
#include <string>
#include <string_view>

namespace rb {

// `s` with every byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included)
// replaced by U+FFFD. Valid input is returned unchanged.
std::string valid_utf8(std::string_view s);

}  // namespace rb
