#include "util/url.h"

#include <gtest/gtest.h>

namespace rb {
namespace {

TEST(Url, PasswordsAreMaskedUserAndHostKept) {
  EXPECT_EQ(redact_url("http://alice:SECRET@lava.example.org/"),
            "http://alice:***@lava.example.org/");
  EXPECT_EQ(redact_url("https://alice@lava.example.org/"), "https://alice@lava.example.org/");
  EXPECT_EQ(redact_url("https://lava.example.org/x?password=pw&a=1"),
            "https://lava.example.org/x?password=***&a=1");
  EXPECT_EQ(redact_url("https://h/a:b@c"), "https://h/a:b@c");  // '@' in the path
  EXPECT_EQ(url_password("http://alice:SECRET@h:80/"), "SECRET");
  EXPECT_EQ(url_password("http://h/?ssl=1&password=x"), "x");
  EXPECT_EQ(url_password("http://alice@h/"), "");
}

TEST(Url, EveryUrlOfATextIsMasked) {
  EXPECT_EQ(
      redact_urls_in("lava:\n  url: http://alice:SECRET@127.0.0.1:9/\n  x: \"https://b:PW@h\"\n"),
      "lava:\n  url: http://alice:***@127.0.0.1:9/\n  x: \"https://b:***@h\"\n");
  EXPECT_EQ(redact_urls_in("no url here"), "no url here");
}

TEST(Url, HostAndLoopback) {
  EXPECT_EQ(url_scheme("HTTPS://x/"), "https");
  EXPECT_EQ(url_authority("http://alice:pw@LAVA.example.org:8080/api"), "lava.example.org:8080");
  EXPECT_EQ(url_host("http://alice:pw@LAVA.example.org:8080/api"), "lava.example.org");
  EXPECT_EQ(url_host("http://[::1]:8000/"), "::1");
  for (const char* h : {"localhost", "127.0.0.1", "127.1.2.3", "::1"})
    EXPECT_TRUE(is_loopback_host(h)) << h;
  for (const char* h : {"127.0.0.1.evil.net", "127.evil", "lava.example.org", "10.0.0.1", ""})
    EXPECT_FALSE(is_loopback_host(h)) << h;
}

}  // namespace
}  // namespace rb
