#include "report/markdown.h"

namespace rb::report {

std::string md_inert(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '`') {
      // A code span runs to the next backtick; an unmatched one is literal.
      size_t end = s.find('`', i + 1);
      if (end != std::string::npos) {
        out.append(s, i, end - i + 1);
        i = end;
        continue;
      }
      out += c;
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : md_inert(s)) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out.empty() ? " " : out;
}

}  // namespace rb::report
