#include "lava/lava.h"

#include <curl/curl.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/atomic_write.h"
#include "util/posix_file.h"
#include "util/sha256.h"
#include "util/url.h"

namespace rb::lava {

using nlohmann::json;

namespace {

std::filesystem::path default_token_file() {
  if (const char* f = std::getenv("RTOSBENCH_LAVA_TOKEN_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
    return std::filesystem::path(x) / "rtosbench" / "lava-tokens";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".config" / "rtosbench" / "lava-tokens";
  return {};
}

Result<std::string> token_for(const std::string& text, const std::string& authority,
                              const std::string& where) {
  std::istringstream in(text);
  std::vector<std::string> hosts;
  bool unbound = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string host, token, more;
    if (!(words >> host) || host.front() == '#') continue;
    if (!(words >> token) || (words >> more)) {
      unbound = true;  // never said: the line may be the token itself
      continue;
    }
    std::string h = host;
    std::ranges::transform(h, h.begin(), [](unsigned char c) { return std::tolower(c); });
    if (h == authority) return token;
    hosts.push_back(h);
  }
  if (unbound && hosts.empty()) {
    return make_error(ErrorKind::kUnavailable,
                      fmt::format("the LAVA token in {} names no host: write it as `HOST TOKEN` "
                                  "(here `{} TOKEN`), so that it is sent to that server only "
                                  "(docs/lava.md)",
                                  where, authority));
  }
  return make_error(
      ErrorKind::kUnavailable,
      fmt::format(
          "no LAVA token for {} (the bench's lava.url) in {}{}; add a line "
          "`{} TOKEN` (docs/lava.md)",
          authority, where,
          hosts.empty() ? "" : fmt::format(" (it has tokens for {})", fmt::join(hosts, ", ")),
          authority));
}

}  // namespace

Result<std::string> read_token(const matrix::LavaServer& server) {
  const std::string authority = url_authority(server.url);
  if (authority.empty())
    return make_error(ErrorKind::kUsage, "the LAVA token: the bench's lava.url names no host");
  if (!server.token_env.empty()) {
    if (server.token_env.rfind("RTOSBENCH_LAVA_", 0) != 0) {
      return make_error(
          ErrorKind::kUsage,
          fmt::format("the LAVA token: {} is not an RTOSBENCH_LAVA_* variable", server.token_env));
    }
    const char* v = std::getenv(server.token_env.c_str());
    if (!v || !*v)
      return make_error(ErrorKind::kUnavailable,
                        fmt::format("the LAVA token: environment variable {} is not set (the "
                                    "bench's lava.token_env)",
                                    server.token_env));
    return token_for(v, authority, "environment variable " + server.token_env);
  }
  const auto file = default_token_file();
  if (file.empty())
    return make_error(ErrorKind::kUnavailable,
                      "the LAVA token: no token file (set RTOSBENCH_LAVA_TOKEN_FILE, or HOME for "
                      "~/.config/rtosbench/lava-tokens)");
  auto text = read_whole_file(file);
  if (!text)
    return make_error(ErrorKind::kCannotRead,
                      fmt::format("the LAVA token: cannot read {} (RTOSBENCH_LAVA_TOKEN_FILE, else "
                                  "$XDG_CONFIG_HOME/rtosbench/lava-tokens or "
                                  "~/.config/rtosbench/lava-tokens)",
                                  file.string()));
  return token_for(*text, authority, file.string());
}

namespace {

size_t append_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::string clip(const std::string& s, size_t max = 300) {
  std::string t = s.size() > max ? s.substr(0, max) + "..." : s;
  std::ranges::replace_if(
      t, [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return t;
}

class HttpApi final : public Api {
 public:
  HttpApi(matrix::LavaServer server, std::string token, std::chrono::seconds timeout)
      : server_(std::move(server)), token_(std::move(token)), timeout_(timeout) {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  Result<int64_t> submit(const std::string& definition) override {
    auto r = request("POST", "api/v0.2/jobs/", json{{"definition", definition}}.dump());
    if (!r.ok()) return r.error();
    try {
      const auto ids = json::parse(*r).at("job_ids");
      if (ids.empty()) throw std::runtime_error("no job id");
      return ids.at(0).get<int64_t>();
    } catch (const std::exception& e) {
      return make_error(ErrorKind::kBadInput,
                        fmt::format("LAVA {}: the submission's answer has no job id ({}): {}",
                                    redact_url(server_.url), e.what(), clip(*r)));
    }
  }

  Result<JobState> state(int64_t id) override {
    auto r = request("GET", fmt::format("api/v0.2/jobs/{}/", id), "");
    if (!r.ok()) return r.error();
    try {
      json j = json::parse(*r);
      auto text = [&](const char* k) {
        return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : "";
      };
      return JobState{id, j.at("state").get<std::string>(), j.at("health").get<std::string>(),
                      text("actual_device"), text("failure_comment")};
    } catch (const std::exception& e) {
      return make_error(
          ErrorKind::kBadInput,
          fmt::format("LAVA job {}: unexpected state document ({}): {}", id, e.what(), clip(*r)));
    }
  }

  Result<std::string> log(int64_t id) override {
    return request("GET", fmt::format("api/v0.2/jobs/{}/logs/", id), "");
  }

  // POST as newer servers take it; LAVA 2023.01 (Debian 12) routes GET only.
  Status cancel(int64_t id) override {
    const std::string path = fmt::format("api/v0.2/jobs/{}/cancel/", id);
    auto r = request("POST", path, "");
    if (!r.ok() && r.error().message.find("HTTP 405") != std::string::npos)
      r = request("GET", path, "");
    return r.ok() ? Status() : Status(r.error());
  }

  std::string job_url(int64_t id) const override {
    return fmt::format("{}scheduler/job/{}", redact_url(server_.url), id);
  }

 private:
  Result<std::string> request(const char* method, const std::string& path,
                              const std::string& body) {
    const std::string url = server_.url + path;
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> h(curl_easy_init(), curl_easy_cleanup);
    if (!h) return make_error(ErrorKind::kInternal, "curl_easy_init failed");
    std::string out;
    char err[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, ("Authorization: Token " + token_).c_str());
    headers = curl_slist_append(headers, "Accept: application/json");
    if (!body.empty()) headers = curl_slist_append(headers, "Content-Type: application/json");
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> hold(headers, curl_slist_free_all);
    const std::string scheme = url_scheme(server_.url);
    auto set = [&](CURLoption o, auto v) { curl_easy_setopt(h.get(), o, v); };
    set(CURLOPT_URL, url.c_str());
    set(CURLOPT_HTTPHEADER, headers);
    set(CURLOPT_WRITEFUNCTION, append_body);
    set(CURLOPT_WRITEDATA, &out);
    set(CURLOPT_ERRORBUFFER, err);
    set(CURLOPT_NOSIGNAL, 1L);
    set(CURLOPT_FOLLOWLOCATION, 1L);
    // A redirect keeps the scheme: never from https to plain http. (libcurl
    // sends the Authorization header to the same host only.)
    set(CURLOPT_PROTOCOLS_STR, scheme.c_str());
    set(CURLOPT_REDIR_PROTOCOLS_STR, scheme.c_str());
    set(CURLOPT_TIMEOUT, static_cast<long>(timeout_.count()));
    set(CURLOPT_CONNECTTIMEOUT, 20L);
    if (std::string(method) == "POST") {
      set(CURLOPT_POST, 1L);
      set(CURLOPT_POSTFIELDS, body.c_str());
      set(CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    CURLcode rc = curl_easy_perform(h.get());
    if (rc != CURLE_OK) {
      return make_error(ErrorKind::kUnavailable,
                        fmt::format("LAVA {} {}: {}", method, redact_url(url),
                                    *err ? std::string(err) : curl_easy_strerror(rc)));
    }
    long code = 0;
    curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code >= 300) {
      return make_error(
          ErrorKind::kUnavailable,
          fmt::format("LAVA {} {}: HTTP {}{}: {}", method, redact_url(url), code,
                      code == 401 || code == 403 ? " (is the token right?)" : "", clip(out)));
    }
    return out;
  }

  matrix::LavaServer server_;
  std::string token_;
  std::chrono::seconds timeout_;
};

// "2026-12-01T22:45:04.368111" as seconds (only differences are used).
double seconds_of(const std::string& dt) {
  std::tm tm{};
  std::istringstream in(dt);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return -1;
  double frac = 0;
  if (auto dot = dt.find('.'); dot != std::string::npos) {
    try {
      frac = std::stod("0" + dt.substr(dot));
    } catch (const std::exception&) {
    }
  }
  return static_cast<double>(timegm(&tm)) + frac;
}

std::string yaml_quote(const std::string& s) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << s;
  return e.c_str();
}

}  // namespace

std::unique_ptr<Api> make_http_api(const matrix::LavaServer& server, std::string token,
                                   std::chrono::seconds timeout) {
  return std::make_unique<HttpApi>(server, std::move(token), timeout);
}

Result<std::string> publish(const matrix::LavaServer& server, const std::filesystem::path& elf) {
  auto sha = sha256_file(elf);
  if (!sha.ok()) return sha.error();
  const std::string name = *sha + ".elf";
  const auto target = server.publish_dir / name;
  std::error_code ec;
  if (!std::filesystem::exists(target, ec)) {
    std::filesystem::create_directories(server.publish_dir, ec);
    auto data = read_whole_file(elf);
    if (!data) return make_error(ErrorKind::kCannotRead, "cannot read the image " + elf.string());
    if (auto w = write_file_atomic(target, *data); !w.ok())
      return make_error(ErrorKind::kStore,
                        fmt::format("cannot publish the image into {}: {}",
                                    server.publish_dir.string(), w.error().message));
    // The workers run as another user: they only need to read it.
    std::filesystem::permissions(
        target,
        std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
            std::filesystem::perms::group_read | std::filesystem::perms::others_read,
        ec);
  }
  return server.publish_url + "/" + name;
}

std::string job_definition(const JobRequest& r) {
  const auto& lb = *r.board.lava;
  const bool qemu = lb.boot == "qemu";
  auto seconds = [](double s) { return std::max<long>(1, static_cast<long>(s + 0.999)); };
  const long deploy = seconds(r.deploy_s), test = seconds(r.capture_s);
  std::string y;
  y += "device_type: " + yaml_quote(lb.device_type) + "\n";
  y += "job_name: " + yaml_quote(r.name) + "\n";
  y += fmt::format(
      "timeouts:\n  job: {{seconds: {}}}\n  action: {{seconds: {}}}\n  connection: {{seconds: "
      "{}}}\n",
      2 * deploy + test + 60, std::max(deploy, test), test);
  y += "priority: " + lb.priority + "\nvisibility: public\n";
  if (!lb.tags.empty()) {
    y += "tags:\n";
    for (const auto& t : lb.tags) y += "- " + yaml_quote(t) + "\n";
  }
  if (qemu) {
    // LAVA's qemu template always passes -cpu for arch arm: the board's core.
    y += "context:\n  arch: arm\n  cpu: " + yaml_quote(r.board.qemu.cpu) + "\n";
    y += "  machine: " + yaml_quote(r.board.qemu.machine) + "\n";
    // As the local qemu flasher: instruction counting, then the bench's own.
    y += "  extra_options:\n  - '-icount'\n  - 'shift=0,align=off,sleep=off'\n";
    for (const auto& a : r.board.qemu.extra_args) y += "  - " + yaml_quote(a) + "\n";
  }
  y += "actions:\n";
  y += fmt::format("- deploy:\n    timeout: {{seconds: {}}}\n    to: tmpfs\n    images:\n", deploy);
  if (qemu) {
    y += "      firmware:\n        image_arg: '-kernel {firmware}'\n";
  } else {
    y += "      binary:\n";
  }
  y += "        url: " + yaml_quote(r.image_url) + "\n";
  y += fmt::format("- boot:\n    method: {}\n    timeout: {{seconds: {}}}\n", lb.boot, deploy);
  // The start handshake (docs/protocol.md 1.3): wait for the banner, answer
  // it; the success is the position just before BEGIN (a look-ahead), so the
  // monitor still sees BEGIN.
  y += fmt::format(
      "- test:\n    timeout: {{seconds: {}}}\n    interactive:\n    - name: rtosbench-start\n"
      "      prompts: ['waiting for START']\n      script:\n      - command: null\n"
      "        name: banner\n      - command: {}\n        name: start\n"
      "        wait_for_prompt: false\n"
      "        successes: [{{message: '(?=BEGIN,RTOS_BENCH_V)'}}]\n",
      deploy, yaml_quote("START " + r.nonce));
  y += fmt::format(
      "- test:\n    timeout: {{seconds: {}}}\n    monitors:\n    - name: rtosbench\n"
      "      start: 'BEGIN,RTOS_BENCH_V'\n      end: 'END,RTOS_BENCH_V'\n"
      "      pattern: '^rtosbench-lava-no-result(?P<result>pass)$'\n"
      "      fixupdict: {{}}\n",
      test);
  return y;
}

Result<ParsedLog> parse_log(const std::string& text) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::kBadInput,
                      fmt::format("the LAVA job log is not YAML: {}", e.what()));
  }
  ParsedLog out;
  if (root.IsNull()) return out;
  if (!root.IsSequence())
    return make_error(ErrorKind::kBadInput, "the LAVA job log is not a list of entries");
  double first = -1;
  for (const auto& e : root) {
    if (!e.IsMap()) continue;
    const std::string lvl = e["lvl"] && e["lvl"].IsScalar() ? e["lvl"].Scalar() : "";
    const YAML::Node msg = e["msg"];
    if ((lvl == "target" || lvl == "feedback") && msg && msg.IsScalar()) {
      if (out.end_seen) continue;
      std::string line = msg.Scalar();
      while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
      double t = e["dt"] && e["dt"].IsScalar() ? seconds_of(e["dt"].Scalar()) : -1;
      if (first < 0) first = t;
      if (line.rfind("BEGIN,", 0) == 0 && !out.begin_seen) {
        out.begin_seen = true;
        if (t >= 0 && first >= 0) out.seconds_to_begin = t - first;
      }
      if (line.rfind("END,", 0) == 0) {
        out.end_seen = true;
        if (t >= 0 && first >= 0) out.seconds_to_end = t - first;
      }
      out.serial.push_back(std::move(line));
    } else if (lvl == "results" && msg && msg.IsMap()) {
      auto field = [&](const char* k) {
        return msg[k] && msg[k].IsScalar() ? msg[k].Scalar() : std::string();
      };
      if (field("definition") == "lava" && field("case") == "job") {
        out.error_type = field("error_type");
        out.error_msg = field("error_msg");
      } else if (field("result") == "fail" && out.failed_action == 0) {
        std::string level = field("level");
        // The job's check before anything runs: the image was not there.
        if (field("case") == "validate") level = "1";
        if (!level.empty()) {
          try {
            out.failed_action = std::stoi(level.substr(0, level.find('.')));
          } catch (const std::exception&) {
          }
          out.failed_case = field("case");
        }
      }
    }
  }
  return out;
}

std::string raw_capture(const ParsedLog& log) {
  std::string s;
  for (const auto& l : log.serial) s += l + '\n';
  return s;
}

Classified classify(const JobState& st, const ParsedLog& log) {
  Classified c;
  std::string comment = !st.failure_comment.empty() ? st.failure_comment : log.error_msg;
  std::string what = fmt::format("LAVA job {} {}", st.id, st.health);
  if (!log.error_type.empty()) what += " (" + log.error_type + ")";
  if (!log.failed_case.empty()) what += " in " + log.failed_case;
  c.reason = comment.empty() ? what : what + ": " + clip(comment, 400);
  if (st.health == "Canceled") {
    c.outcome = Outcome::kPortError;
    c.reason = fmt::format("LAVA job {} was canceled on the server{}", st.id,
                           comment.empty() ? "" : ": " + clip(comment, 400));
    return c;
  }
  // What the board said is what counts once END arrived (a failure in
  // LAVA's finalize step does not change the measurement).
  if (log.end_seen) {
    c.outcome = Outcome::kCaptured;
    c.reason.clear();
    return c;
  }
  // A timeout: LAVA's own error type, or the monitor's or the interactive
  // test's "timed out" (error type Test in 2023.01).
  const bool timed_out = comment.find("timed out") != std::string::npos ||
                         log.error_msg.find("timed out") != std::string::npos;
  if (log.error_type == "LAVATimeout" || log.error_type == "MultinodeTimeout" ||
      (timed_out && log.failed_action >= 3)) {
    c.outcome = Outcome::kTimeout;
  } else if (log.failed_action == 1 || log.failed_action == 2) {
    c.outcome = Outcome::kFlashError;  // deploy or boot
  } else if (st.health == "Complete") {
    c.outcome = Outcome::kTimeout;
    c.reason = fmt::format("LAVA job {} Complete but its log has no END line", st.id);
  } else {
    c.outcome = Outcome::kPortError;
  }
  return c;
}

}  // namespace rb::lava
