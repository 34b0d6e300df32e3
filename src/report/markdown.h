#pragma once
// Text that goes into a Markdown report: whatever a run, a matrix or a note
// holds is printed inert. Markdown passes raw HTML through, so `<`, `>` and
// `&` outside code spans become entities (`<script>` is shown, never run);
// inside a closed code span they are literal text already.
#include <string>

namespace rb::report {

// `s` with HTML made inert outside its closed `code` spans.
std::string md_inert(const std::string& s);

// One table cell: md_inert, `|` escaped, newlines as spaces, never empty.
std::string md_cell(const std::string& s);

}  // namespace rb::report
