#pragma once
// Text taken from a serial capture may hold any bytes; JSON must be UTF-8.
#include <string>
#include <string_view>

namespace rb {

// `s` with every byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included)
// replaced by U+FFFD. Valid input is returned unchanged.
std::string valid_utf8(std::string_view s);

// The length in bytes of a character at `s[i]` that a terminal acts on
// instead of showing it, 0 when there is none: a C0 control or DEL (ESC
// starts the escape sequences), a C1 control in its UTF-8 form (U+0080 to
// U+009F; U+009B is CSI) and the bidirectional overrides and isolates
// (U+202A to U+202E, U+2066 to U+2069), which reorder what follows. `s`
// must be valid UTF-8 (valid_utf8).
size_t terminal_control_at(std::string_view s, size_t i);

// `s` as it may reach a terminal: made valid UTF-8, every character
// terminal_control_at finds written as \xNN or \u{NNNN}, line ends and tabs
// kept. For whole messages and reports, whatever text from a matrix, a
// capture or a run directory they quote.
std::string terminal_safe(std::string_view s);

// The same with every control escaped (line ends and tabs too, unless
// `keep_layout`), cut after `max` bytes of output with "...": a quoted value.
std::string escape_controls(std::string_view s, size_t max, bool keep_layout = false);

}  // namespace rb
