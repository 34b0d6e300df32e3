// The LAVA bench (docs/lava.md): each attempt of a load is one LAVA job.
// The image published, the job submitted (its id on disk, lava.json, before
// the wait), its state followed until it finishes (cancelled when the run
// is interrupted), its log fetched (lava-log.yaml) and the board's serial
// lines written to capture.raw, the outcome mapped onto the attempt's
// status. The runner then verifies capture.raw as for a local bench.
#include <fmt/core.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "run/bench.h"
#include "util/atomic_write.h"
#include "util/sha256.h"
#include "util/url.h"

namespace rb::run {

using nlohmann::json;
using store::JobStatus;

namespace {

// The jobs of a run on LAVA by state, for the progress line.
struct LavaCounts {
  std::atomic<int> queued{0}, running{0}, done{0};
  std::atomic<int>* bucket(const std::string& state) {
    if (state == "Running" || state == "Canceling") return &running;
    return state == "Finished" ? &done : &queued;
  }
};

// The LAVA job id a killed earlier session left in `attempt_dir`
// (lava.json without attempt.json); 0 when none.
int64_t orphaned_lava_job(const std::filesystem::path& attempt_dir) {
  std::error_code ec;
  if (std::filesystem::exists(attempt_dir / "attempt.json", ec)) return 0;
  std::ifstream in(attempt_dir / "lava.json");
  if (!in) return 0;
  try {
    return json::parse(in).at("job_id").get<int64_t>();
  } catch (const std::exception&) {
    return 0;
  }
}

// The attempt's status, always false (an interrupt is the caller's to say).
bool fail(store::AttemptRecord& a, JobStatus s, std::string reason) {
  a.status = s;
  a.reason = std::move(reason);
  return false;
}

// A LAVA device type of the bench: as many lanes as its `jobs:` allow. One
// attempt: submit_job, follow_job, collect_log; each false (or 0) with the
// record failed when it did not work.
class LavaLane final : public BenchLane {
 public:
  LavaLane(lava::Api* api, const std::string& api_error, const matrix::LavaServer& server,
           LavaCounts& counts)
      : api_(api), api_error_(api_error), server_(server), counts_(counts) {}

  // A LAVA job an earlier session submitted and never saw finish is
  // followed again in its own attempt directory, not submitted twice.
  int next_attempt(const std::filesystem::path& base) override {
    int n = BenchLane::next_attempt(base);
    adopt_ = n > 1 ? orphaned_lava_job(base / fmt::format("attempt-{}", n - 1)) : 0;
    return adopt_ ? n - 1 : n;
  }

  bool capture(BenchAttempt& a) override {
    a.record.raw_file = std::filesystem::relative(a.dir / "capture.raw", a.job_dir).string();
    const int64_t adopt = std::exchange(adopt_, 0);
    if (!api_) {
      fail_attempt(a.record, JobStatus::kPortError, "LAVA: " + api_error_);
      return false;
    }
    bool captured = false;
    if (const int64_t id = submit_job(a, adopt)) {
      store::AttemptRecord& r = a.record;
      r.lava_job_id = id;
      r.lava_url = r.serial_port = api_->job_url(id);
      r.flash_commands = {fmt::format("POST {}api/v0.2/jobs/ (lava-job.yaml) -> job {}",
                                      redact_url(server_.url), id)};
      if (auto st = follow_job(a, id)) {
        r.lava_state = st->state;
        r.lava_health = st->health;
        r.lava_device = st->device;
        r.lava_failure_comment = st->failure_comment;
        captured = collect_log(a, id, *st);
      }
    }
    if (!captured && interrupt_requested())
      fail_attempt(a.record, JobStatus::kInterrupted, "interrupted");
    return captured;
  }

 private:
  // Publishes the image and submits its job, or (a resumed run) follows the
  // job `adopt` an earlier session submitted.
  int64_t submit_job(const BenchAttempt& in, int64_t adopt) {
    store::AttemptRecord& a = in.record;
    if (adopt) {
      in.log(fmt::format("LAVA job {} followed again ({}): submitted by an earlier session", adopt,
                         api_->job_url(adopt)));
      return adopt;
    }
    in.stage("publish");
    auto url = lava::publish(server_, in.job_dir / "firmware" / "rtosbench-fw.elf");
    if (!url.ok()) {
      return fail(
          a,
          url.error().kind == ErrorKind::kStore ? JobStatus::kStoreError : JobStatus::kFlashError,
          url.error().message);
    }
    lava::JobRequest req;
    req.name = fmt::format("rtosbench {} on {}", in.job.id, in.board.id);
    req.image_url = *url;
    req.nonce = in.expect.count("nonce") ? in.expect.at("nonce") : "";
    req.board = in.board;
    req.deploy_s = in.matrix.timeouts.flash_s;
    req.capture_s = in.matrix.timeouts.capture_s;
    std::string def = lava::job_definition(req);
    if (auto w = write_file_atomic(in.dir / "lava-job.yaml", def); !w.ok())
      return fail(a, JobStatus::kStoreError, w.error().message);
    in.stage("submit");
    auto sub = api_->submit(def);
    if (!sub.ok())
      return fail(a, JobStatus::kPortError,
                  "LAVA: the job was not submitted: " + sub.error().message);
    const int64_t id = *sub;
    // On disk before the wait: a resumed run follows this job instead of
    // submitting another.
    json doc{{"job_id", id}, {"url", api_->job_url(id)}, {"image", *url}};
    if (auto w = write_file_atomic(in.dir / "lava.json", doc.dump(2) + "\n"); !w.ok()) {
      (void)api_->cancel(id);
      return fail(a, JobStatus::kStoreError, w.error().message);
    }
    in.log(fmt::format("LAVA job {} submitted ({}), image {}", id, api_->job_url(id), *url));
    return id;
  }

  // Follows job `id` to its end and returns its last state; nullopt when it
  // was interrupted, timed out or the server stopped answering. The queue
  // may hold it long (queue_timeout); once it runs, LAVA's own timeouts end
  // it, ours only guards against a server that stops answering.
  std::optional<lava::JobState> follow_job(const BenchAttempt& in, int64_t id) {
    store::AttemptRecord& a = in.record;
    const auto& t = in.matrix.timeouts;
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    auto running_since = clock::time_point{};
    const double run_limit_s = 2 * t.flash_s + t.capture_s + 180;
    std::string last_state, last_stage;
    std::atomic<int>* counted = nullptr;
    auto count = [&](const std::string& state) {
      auto* b = counts_.bucket(state);
      if (b == counted) return;
      if (counted) --*counted;
      ++*b;
      counted = b;
    };
    lava::JobState st;
    int failures = 0;
    while (true) {
      if (interrupt_requested()) {
        auto c = api_->cancel(id);
        in.log(fmt::format("LAVA job {}: interrupted, {}", id,
                           c.ok() ? "cancelled" : "cancel failed: " + c.error().message));
        count("Finished");
        a.lava_state = last_state;
        fail(a, JobStatus::kInterrupted, "interrupted");
        return std::nullopt;
      }
      if (auto s = api_->state(id); !s.ok()) {
        // A server restart or a network blip: keep trying for a while.
        if (++failures >= 30) {
          count("Finished");
          fail(a, JobStatus::kPortError,
               fmt::format("LAVA job {}: the server stopped answering: {}", id, s.error().message));
          return std::nullopt;
        }
      } else {
        failures = 0;
        st = *s;
        count(st.state);
        if (st.state != last_state) {
          in.log(fmt::format("LAVA job {}: {}{}", id, st.state,
                             st.device.empty() ? "" : " on " + st.device));
          last_state = st.state;
        }
        if (st.finished()) return st;
        if (st.state == "Running" && running_since == clock::time_point{})
          running_since = clock::now();
        // Said again only when it changed (plain output prints every stage).
        std::string text = fmt::format("LAVA job {} {} (lava: {} queued, {} running, {} done)", id,
                                       st.queued() ? "queued" : "running", counts_.queued.load(),
                                       counts_.running.load(), counts_.done.load());
        if (text != last_stage) in.stage(last_stage = text);
      }
      const bool queued = running_since == clock::time_point{};
      double waited =
          std::chrono::duration<double>(clock::now() - (queued ? t0 : running_since)).count();
      if (queued ? waited > server_.queue_timeout_s : waited > run_limit_s) {
        (void)api_->cancel(id);
        count("Finished");
        fail(a, queued ? JobStatus::kPortError : JobStatus::kTimeout,
             queued
                 ? fmt::format("LAVA job {} still waiting for a {} device after {:.0f} s "
                               "(lava.queue_timeout); cancelled",
                               id, in.board.lava->device_type, waited)
                 : fmt::format("LAVA job {} still running after {:.0f} s; cancelled", id, waited));
        return std::nullopt;
      }
      // Sleep in small steps so that an interrupt is seen at once.
      for (int i = 0; i < static_cast<int>(server_.poll_s * 10) && !interrupt_requested(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // The finished job's log into the attempt: kept byte for byte, then its
  // serial lines into capture.raw, then classified. True: captured to END.
  bool collect_log(const BenchAttempt& in, int64_t id, const lava::JobState& st) {
    store::AttemptRecord& a = in.record;
    in.stage(fmt::format("LAVA job {} log", id));
    Result<std::string> text = make_error(ErrorKind::kInternal, "");
    for (int i = 0; i < 5; ++i) {
      if ((text = api_->log(id)).ok()) break;
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    if (!text.ok()) {
      return fail(
          a, JobStatus::kPortError,
          fmt::format("LAVA job {}: the log could not be fetched: {}", id, text.error().message));
    }
    if (auto w = write_file_atomic(in.dir / "lava-log.yaml", *text); !w.ok())
      return fail(a, JobStatus::kStoreError, w.error().message);
    auto parsed = lava::parse_log(*text);
    if (!parsed.ok())
      return fail(a, JobStatus::kPortError,
                  fmt::format("LAVA job {}: {}", id, parsed.error().message));
    const auto raw = in.dir / "capture.raw";
    const std::string bytes = lava::raw_capture(*parsed);
    if (auto w = write_file_atomic(raw, bytes); !w.ok())
      return fail(a, JobStatus::kStoreError, w.error().message);
    a.capture_bytes = bytes.size();
    a.capture_lines = parsed->serial.size();
    a.start_sends = 1;
    if (auto h = sha256_file(raw); h.ok()) a.raw_sha256 = *h;
    if (parsed->end_seen) {
      a.target_run_seconds = parsed->seconds_to_end;
      if (parsed->seconds_to_begin >= 0) {
        bool after = false;
        for (const auto& l : parsed->serial) {
          if (l.rfind("BEGIN,", 0) == 0) after = true;
          if (after) a.transfer_bytes += l.size() + 1;
        }
        a.transfer_seconds = parsed->seconds_to_end - parsed->seconds_to_begin;
      }
    }
    auto c = lava::classify(st, *parsed);
    if (c.outcome == lava::Outcome::kCaptured) {
      a.capture_stop = "end";
      in.log(fmt::format("LAVA job {} {}: {} serial lines to END", id, st.health,
                         parsed->serial.size()));
      return true;
    }
    if (c.outcome == lava::Outcome::kTimeout) a.capture_stop = "overall_timeout";
    if (c.outcome == lava::Outcome::kPortError) a.capture_stop = "port_error";
    fail(a,
         c.outcome == lava::Outcome::kTimeout      ? JobStatus::kTimeout
         : c.outcome == lava::Outcome::kFlashError ? JobStatus::kFlashError
                                                   : JobStatus::kPortError,
         c.reason);
    in.log(fmt::format("LAVA job {}: {}", id, a.reason));
    return false;
  }

  lava::Api* api_;
  const std::string& api_error_;
  const matrix::LavaServer& server_;
  LavaCounts& counts_;
  int64_t adopt_ = 0;
};

// The bench's LAVA device types through the server; its other boards (none
// with `lava:`) through `local`.
class LavaBench final : public Bench {
 public:
  LavaBench(const matrix::LavaServer& server, Result<std::unique_ptr<lava::Api>> api,
            std::unique_ptr<Bench> local)
      : server_(server), local_(std::move(local)) {
    if (api.ok())
      api_ = std::move(*api);
    else
      api_error_ = api.error().message;
  }
  int lanes(const matrix::BoardInstance& b) const override {
    return b.lava ? b.lava->jobs : local_->lanes(b);
  }
  std::unique_ptr<BenchLane> lane(const matrix::BoardInstance& b) override {
    if (!b.lava) return local_->lane(b);
    return std::make_unique<LavaLane>(api_.get(), api_error_, server_, counts_);
  }

 private:
  const matrix::LavaServer& server_;
  std::unique_ptr<Bench> local_;
  std::unique_ptr<lava::Api> api_;  // nullptr: api_error_ says why
  std::string api_error_;
  LavaCounts counts_;
};

}  // namespace

std::unique_ptr<Bench> make_lava_bench(const matrix::LavaServer& server,
                                       Result<std::unique_ptr<lava::Api>> api,
                                       std::unique_ptr<Bench> local) {
  return std::make_unique<LavaBench>(server, std::move(api), std::move(local));
}

}  // namespace rb::run
