#pragma once
// URLs as rtosbench shows and checks them: the one place that masks their
// credentials (history databases, LAVA servers) and that reads their host.
#include <string>

namespace rb {

// The URL as messages and records show it: the password of
// scheme://user:PASSWORD@host and of ?password=PASSWORD / &password=PASSWORD
// replaced by ***; anything else unchanged.
std::string redact_url(const std::string& url);

// Every URL in `text` (each scheme://... up to a space, a quote or a line
// end) redacted as redact_url does: for a file that is copied as it is.
std::string redact_urls_in(const std::string& text);

// The password of scheme://user:PASSWORD@host or ?password=PASSWORD, as given
// ("" when none).
std::string url_password(const std::string& url);

// scheme://[user[:password]@]host[:port]/...: the scheme, lower-case ("" when
// the text has no "://").
std::string url_scheme(const std::string& url);
// host[:port], lower-case, without the user part: "lava.example.org",
// "127.0.0.1:8080", "[::1]:80".
std::string url_authority(const std::string& url);
// The host alone (no port, IPv6 without brackets).
std::string url_host(const std::string& url);

// localhost, 127.0.0.0/8 or ::1: a host whose traffic never leaves the machine.
bool is_loopback_host(const std::string& host);

}  // namespace rb
