#include "util/url.h"

#include <algorithm>
#include <cctype>

namespace rb {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// [start, end) of the authority (user info and host) of `url`; npos when
// there is no "://".
std::pair<size_t, size_t> authority_span(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos) return {std::string::npos, std::string::npos};
  size_t start = scheme + 3;
  size_t end = std::min(url.find_first_of("/?#", start), url.size());
  return {start, end};
}

}  // namespace

std::string redact_url(const std::string& url) {
  std::string out = url;
  // user:PASSWORD@host
  if (auto [start, end] = authority_span(out); start != std::string::npos) {
    size_t at = out.rfind('@', end);
    if (at != std::string::npos && at >= start) {
      size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // ?password=PASSWORD or &password=PASSWORD
  for (size_t at = 0; (at = out.find("password=", at)) != std::string::npos;) {
    if (at > 0 && out[at - 1] != '?' && out[at - 1] != '&') {
      at += 9;
      continue;
    }
    size_t start = at + 9;
    size_t end = std::min(out.find('&', start), out.size());
    out.replace(start, end - start, "***");
    at = start + 3;
  }
  return out;
}

std::string redact_urls_in(const std::string& text) {
  std::string out;
  size_t done = 0;
  for (size_t p; (p = text.find("://", done)) != std::string::npos;) {
    size_t begin = p;
    while (begin > done &&
           (std::isalnum(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '+' ||
            text[begin - 1] == '-' || text[begin - 1] == '.'))
      --begin;
    size_t end = std::min(text.find_first_of(" \t\r\n\"'", p), text.size());
    out += text.substr(done, begin - done);
    out += redact_url(text.substr(begin, end - begin));
    done = end;
  }
  return out + text.substr(done);
}

std::string url_password(const std::string& url) {
  std::string out;
  if (auto [start, end] = authority_span(url); start != std::string::npos) {
    std::string authority = url.substr(start, end - start);
    size_t at = authority.rfind('@');
    if (at != std::string::npos) {
      size_t colon = authority.find(':');
      if (colon != std::string::npos && colon < at)
        out = authority.substr(colon + 1, at - colon - 1);
    }
  }
  size_t q = url.find("password=");
  if (out.empty() && q != std::string::npos && q > 0 && (url[q - 1] == '?' || url[q - 1] == '&')) {
    size_t end = url.find('&', q);
    out = url.substr(q + 9, end == std::string::npos ? end : end - q - 9);
  }
  return out;
}

std::string url_scheme(const std::string& url) {
  size_t scheme = url.find("://");
  return scheme == std::string::npos ? "" : lower(url.substr(0, scheme));
}

std::string url_authority(const std::string& url) {
  auto [start, end] = authority_span(url);
  if (start == std::string::npos) return "";
  std::string a = url.substr(start, end - start);
  if (size_t at = a.rfind('@'); at != std::string::npos) a = a.substr(at + 1);
  return lower(a);
}

std::string url_host(const std::string& url) {
  std::string a = url_authority(url);
  if (!a.empty() && a.front() == '[') return a.substr(1, a.find(']') - 1);
  return a.substr(0, a.find(':'));
}

bool is_loopback_host(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8, in dotted-quad form only.
  if (host.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return dots == 3;
}

}  // namespace rb
