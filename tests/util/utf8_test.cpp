#include "util/utf8.h"

#include <gtest/gtest.h>

#include "util/yaml_doc.h"

namespace rb {
namespace {

// Issue 35 item 9: what a terminal acts on instead of showing (ESC, C1 such
// as CSI U+009B, the bidirectional overrides such as U+202E) is escaped in
// whatever rtosbench prints; layout (line ends, tabs) stays.
TEST(TerminalSafe, EscapesWhatATerminalWouldActOn) {
  EXPECT_EQ(terminal_safe("ok\n\tnext"), "ok\n\tnext");
  EXPECT_EQ(terminal_safe("\x1b[31mred"), "\\x1b[31mred");
  EXPECT_EQ(terminal_safe("a\xc2\x9b"
                          "2Jb"),
            "a\\u{009b}2Jb");
  EXPECT_EQ(terminal_safe("x\xe2\x80\xaeyz"), "x\\u{202e}yz");
  EXPECT_EQ(terminal_safe("\xe2\x81\xa6i"), "\\u{2066}i");
  EXPECT_EQ(terminal_safe("\r\x7f"), "\\x0d\\x7f");
  EXPECT_EQ(terminal_safe("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");  // é €: shown
  EXPECT_EQ(terminal_safe("\x9b"), "\xef\xbf\xbd");  // a lone C1 byte: U+FFFD, not CSI
}

TEST(TerminalSafe, QuotedValuesAreCutAt80Bytes) {
  const std::string long_value(200, 'x');
  EXPECT_EQ(printable(long_value), std::string(80, 'x') + "...");
  EXPECT_EQ(printable("a\nb"), "a\\x0ab");
  // Never half a character.
  const std::string e_acute = std::string(79, 'x') + "\xc3\xa9" + "tail";
  EXPECT_EQ(printable(e_acute), std::string(79, 'x') + "\xc3\xa9...");
}

}  // namespace
}  // namespace rb
