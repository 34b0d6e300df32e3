#pragma once
// A PostgreSQL server for the history tests, started once per test process
// by tests/store/postgres-server.sh (initdb + pg_ctl from the Debian
// packages into a temporary directory, a unix socket there and a free TCP
// port on 127.0.0.1) and stopped when the process ends. Each test gets a
// database of its own (fresh_database).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#if RTOSBENCH_HAVE_PQXX
#include <pqxx/pqxx>
#endif

namespace rb::testpg {

class Server {
 public:
  // The process's server, started at the first call. `ok()` false: why in `reason()`.
  static Server& get() {
    static Server server;
    return server;
  }

  bool ok() const { return ok_; }
  // Why there is no server: the script's SKIP line, or what failed.
  const std::string& reason() const { return reason_; }
  // Whether the absence is the skip the brief allows (no server binaries)
  // rather than a failure; RTOSBENCH_REQUIRE_POSTGRES=1 makes it a failure too.
  bool skippable() const { return skippable_ && !std::getenv("RTOSBENCH_REQUIRE_POSTGRES"); }
  const std::string& value(const std::string& key) const { return values_.at(key); }

#if RTOSBENCH_HAVE_PQXX
  // A new, empty database on the server; its URL.
  std::string fresh_database() {
    std::string name = "t" + std::to_string(++databases_) + "_" + std::to_string(::getpid());
    pqxx::connection admin(value("admin_url"));
    pqxx::nontransaction(admin).exec("CREATE DATABASE " + name);
    std::string url = value("url");
    return url.replace(url.find("/rtosbench?"), 11, "/" + name + "?");
  }
#endif

  ~Server() {
    if (!dir_.empty()) {
      std::string cmd = "bash '" + script() + "' stop '" + dir_.string() + "' >/dev/null 2>&1";
      (void)std::system(cmd.c_str());
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

 private:
  static std::string script() {
    return std::filesystem::path(RTOSBENCH_TEST_DATA).parent_path() / "store" /
           "postgres-server.sh";
  }

  Server() {
#if !RTOSBENCH_HAVE_PQXX
    reason_ = "this rtosbench is built without libpqxx (install libpqxx-dev and build again)";
    skippable_ = true;
    return;
#else
    // /tmp rather than $TMPDIR: the server's user (nobody, as root) must reach it.
    dir_ = std::filesystem::path("/tmp") / ("rtosbench-pg-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(std::random_device{}() % 100000));
    std::string cmd = "bash '" + script() + "' start '" + dir_.string() + "' 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) {
      reason_ = "cannot run " + script();
      return;
    }
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    int status = ::pclose(p);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 77) {
      reason_ = out;
      skippable_ = true;
      return;
    }
    if (code != 0) {
      reason_ = "postgres-server.sh start failed (exit " + std::to_string(code) + "): " + out;
      return;
    }
    for (size_t at = 0; at < out.size();) {
      size_t end = out.find('\n', at);
      if (end == std::string::npos) end = out.size();
      std::string line = out.substr(at, end - at);
      if (size_t eq = line.find('='); eq != std::string::npos) {
        values_[line.substr(0, eq)] = line.substr(eq + 1);
      }
      at = end + 1;
    }
    ok_ = values_.count("url") && values_.count("admin_url");
    if (!ok_) reason_ = "postgres-server.sh printed no URL: " + out;
#endif
  }

  bool ok_ = false, skippable_ = false;
  std::string reason_;
  std::filesystem::path dir_;
  std::map<std::string, std::string> values_;
  int databases_ = 0;
};

}  // namespace rb::testpg
