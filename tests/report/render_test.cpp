#include "report/render.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include "catalog/catalog.h"
#include "report/markdown.h"
#include "report/regress.h"
#include "report/svg.h"
#include "run_fixture.h"

namespace rb::report {
namespace {

// Golden files: tests/data/report/golden/. scripts/regen-golden-reports.sh
// rewrites them (RTOSBENCH_REGEN_GOLDEN=1) after a deliberate change.
void expect_golden(const std::string& name, const std::string& actual) {
  std::filesystem::path file =
      std::filesystem::path(RTOSBENCH_TEST_DATA) / "report" / "golden" / name;
  if (const char* regen = std::getenv("RTOSBENCH_REGEN_GOLDEN");
      regen && std::string(regen) == "1") {
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << actual;
    std::cout << "regenerated " << file << "\n";
  }
  std::ifstream in(file, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << file << " (run scripts/regen-golden-reports.sh)";
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), actual) << "differs from " << file << "; after a deliberate change run "
                             << "scripts/regen-golden-reports.sh and review the diff";
}

class ReportRender : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = testrun::temp_dir("render");
    auto r1 = load_run(testrun::write_run(
        dir, testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z")));
    auto r2 = load_run(testrun::write_run(
        dir, testrun::standard_run("20260102T000000Z-fixture", "2026-01-02T00:00:00Z", 12)));
    ASSERT_TRUE(r1.ok() && r2.ok());
    // Given newest first: the report orders them by start time.
    runs.push_back(std::move(*r2));
    runs.push_back(std::move(*r1));
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::filesystem::path dir;
  std::vector<rb::report::Run> runs;
};

TEST_F(ReportRender, MarkdownMatchesGolden) {
  auto views = view_runs(runs, ReportOptions{});
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views.back().snap.id, "20260102T000000Z-fixture");
  expect_golden("report.md", to_markdown(build_report(views)));
}

// The reference scheduler is a reference, not a lower bound: a kernel below
// it on a series shows the signed (negative) difference, never an error.
TEST(ReportAgainstReference, AKernelBelowTheReferenceShowsANegativeDifference) {
  auto dir = testrun::temp_dir("against-ref");
  auto spec = testrun::standard_run("20260107T000000Z-fixture", "2026-01-07T00:00:00Z");
  // threadx: a wake latency well below bare's (a synchronous switch).
  const std::vector<uint64_t> fast = testrun::samples(77, 64, 18, 4);
  uint64_t tx_base = 0, bare_base = 0, bare_wake = 0;
  for (auto& s : spec.jobs[2].series) {
    if (s.name == "wake_latency") s.samples = fast;
    if (s.name == "wake_latency") tx_base = *s.base;
  }
  for (const auto& s : spec.jobs[0].series) {
    if (s.name == "wake_latency") {
      bare_base = *s.base;
      bare_wake = testrun::median_of(s.samples);
    }
  }
  const int64_t tx_net = static_cast<int64_t>(testrun::median_of(fast)) - tx_base;
  const int64_t bare_net = static_cast<int64_t>(bare_wake) - bare_base;
  ASSERT_GT(tx_net, 0);
  ASSERT_LT(tx_net, bare_net);
  auto run = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::vector<rb::report::Run> one{*run};
  const std::string md = to_markdown(build_report(view_runs(one, ReportOptions{})));
  const size_t at = md.find("### Against the reference scheduler");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string section = md.substr(at, md.find("\n## ", at) - at);
  EXPECT_NE(section.find("not a lower bound"), std::string::npos) << section;
  const std::string row = "| threadx | threadx-O2-tick1000-fpu0 | bare-O2-tick1000-fpu0 | " +
                          fmt::format("{:+d} |", tx_net - bare_net);
  EXPECT_NE(section.find(row), std::string::npos) << section;
  EXPECT_EQ(section.find("| bare | bare-O2"), std::string::npos) << section;  // no row of its own
  for (const char* word : {"impossible", "negative cost", "floor"})
    EXPECT_EQ(md.find(word), std::string::npos) << word;
  std::filesystem::remove_all(dir);
}

TEST_F(ReportRender, RegressJunitAndMarkdownMatchGolden) {
  // The older run is the baseline; the current run differs from it in one
  // statistic up, one down, a job that became invalid and a new job.
  RunSnapshot base = snapshot_of(runs[1]);
  RunSnapshot cur = base;
  cur.id = "20260102T000000Z-fixture";
  auto& fr = cur.jobs[1];
  ASSERT_EQ(fr.id, "freertos-O2-tick1000-fpu0");
  for (auto& s : fr.series) {
    if (s.name == "wake_latency") s.values["median"] += 20;
  }
  for (auto& s : cur.jobs[2].series) {
    if (s.name == "round_trip") s.values["p99"] -= 30;
  }
  cur.jobs[0].status = "INVALID";
  cur.jobs[0].reason = "line 35: PHASE idle: irq=64 but task=61";
  cur.jobs[0].series.clear();
  JobSnapshot zephyr = cur.jobs[1];
  zephyr.id = "zephyr-O2-tick1000-fpu0";
  cur.jobs.push_back(zephyr);
  RegressReport r = regress(base, cur, Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(r), kRegressFail);
  EXPECT_EQ(r.count(CaseOutcome::kRegression), 1u);
  EXPECT_EQ(r.count(CaseOutcome::kImproved), 1u);
  EXPECT_EQ(r.count(CaseOutcome::kInvalid), 2u);  // bare and nuttx
  expect_golden("regress.junit.xml", to_junit(r));
  expect_golden("regress.md", to_markdown(r));
}

TEST_F(ReportRender, EmulatedFiguresAreNeverCalledCycles) {
  auto views = view_runs(runs, ReportOptions{});
  Document d = build_report(views);
  std::string md = to_markdown(d), html = to_html(d);
  EXPECT_EQ(md.find("cycle"), std::string::npos);
  EXPECT_EQ(html.find("cycle"), std::string::npos);
  EXPECT_NE(md.find("Median [instructions]"), std::string::npos);
  EXPECT_NE(md.find("instruction counts under QEMU"), std::string::npos);
}

TEST_F(ReportRender, HardwareFiguresAreCycles) {
  auto dir2 = testrun::temp_dir("render-hw");
  auto spec = testrun::standard_run("20260105T000000Z-f407", "2026-01-05T00:00:00Z");
  for (auto& j : spec.jobs) j.config["unit"] = "cycles", j.config["counter"] = "dwt";
  auto r = load_run(testrun::write_run(dir2, spec));
  ASSERT_TRUE(r.ok());
  std::vector<rb::report::Run> one;
  one.push_back(std::move(*r));
  std::string md = to_markdown(build_report(view_runs(one, ReportOptions{})));
  EXPECT_NE(md.find("Median [cycles]"), std::string::npos);
  EXPECT_EQ(md.find("instructions"), std::string::npos);
  std::filesystem::remove_all(dir2);
}

// Phase critical: tabled from verify's re-derivation (delayed share, worst
// case beyond the masking window), its percentiles never shown.
TEST_F(ReportRender, CriticalPhaseShowsDelayedShareNotPercentiles) {
  auto dir2 = testrun::temp_dir("render-crit");
  auto spec = testrun::standard_run("20260106T000000Z-crit", "2026-01-06T00:00:00Z");
  auto crit_task = testrun::samples(91, 64, 100, 6);
  crit_task[10] += 2500;  // two events the masking window delayed
  crit_task[40] += 3000;
  for (auto& j : spec.jobs) {
    if (j.series.empty()) continue;
    std::vector<testrun::SeriesSpec> with;
    for (auto& s : j.series) {
      with.push_back(s);
      if (s.phase == "idle" && s.name == "event_to_task") {
        with.push_back(
            {"irq_latency", "busy", "irq_entry", testrun::samples(92, 64, 26, 3), std::nullopt});
        with.push_back({"irq_latency", "busy", "event_to_task",
                        testrun::samples(93, 64, 140, 6, 50), std::nullopt});
        with.push_back({"irq_latency", "critical", "irq_entry", testrun::samples(90, 64, 26, 3),
                        std::nullopt});
        with.push_back({"irq_latency", "critical", "event_to_task", crit_task, std::nullopt});
      }
    }
    j.series = with;
  }
  auto r = load_run(testrun::write_run(dir2, spec));
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<rb::report::Run> one;
  one.push_back(std::move(*r));
  std::string md = to_markdown(build_report(view_runs(one, ReportOptions{})));
  ASSERT_NE(md.find("## Critical phase"), std::string::npos) << md;
  // freertos' busy event_to_task maximum, and the samples above it, by hand.
  const testrun::JobSpec* fr = nullptr;
  for (const auto& j : spec.jobs) {
    if (j.kernel == "freertos") fr = &j;
  }
  ASSERT_NE(fr, nullptr);
  uint64_t limit = 0;
  for (const auto& s : fr->series) {
    if (s.phase == "busy" && s.name == "event_to_task")
      limit = *std::max_element(s.samples.begin(), s.samples.end());
  }
  uint64_t delayed = 0;
  for (uint64_t v : crit_task) delayed += v > limit ? 1 : 0;
  const uint64_t worst = *std::max_element(crit_task.begin(), crit_task.end());
  ASSERT_GT(delayed, 0u);
  const std::string row = fmt::format(
      "| freertos | freertos-O2-tick1000-fpu0 | event_to_task | 64 | {} | {:.2f}% | {} | {} | "
      "2000 | {} | event-timer ticks |",
      delayed, 100.0 * static_cast<double>(delayed) / 64.0, worst, worst - 2000, limit);
  EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
  EXPECT_NE(md.find("| irq_entry (not judged on this bench) | 64 |"), std::string::npos);
  // Every series: the critical row has no p90/p99/p99.9/jitter.
  const size_t at = md.find("| freertos-O2-tick1000-fpu0 | critical/event_to_task | irq_latency |");
  ASSERT_NE(at, std::string::npos);
  const std::string line = md.substr(at, md.find('\n', at) - at);
  EXPECT_NE(line.find(fmt::format("| - | - | - | {} |", worst)), std::string::npos) << line;
  std::filesystem::remove_all(dir2);
}

TEST_F(ReportRender, HtmlIsSelfContained) {
  std::string html = to_html(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  // Nothing fetched: no src/href attributes, no CSS url() or @import; the
  // only URL is the SVG namespace name.
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find(" href="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  std::string stripped = html;
  for (size_t p; (p = stripped.find("xmlns=\"http://www.w3.org/2000/svg\"")) != std::string::npos;)
    stripped.erase(p, 34);
  EXPECT_EQ(stripped.find("http"), std::string::npos);
  // A plot per series of the newest run (7 series) and one trend per headline test (5).
  size_t svgs = 0;
  for (size_t p = html.find("<svg "); p != std::string::npos; p = html.find("<svg ", p + 1)) ++svgs;
  EXPECT_EQ(svgs, 7u + 5u);
  EXPECT_NE(html.find("stroke-dasharray"), std::string::npos);  // threadx from statistics
  EXPECT_NE(html.find("data-report-ready"), std::string::npos);
}

TEST_F(ReportRender, CsvHoldsSummarySamplesAndFootprint) {
  auto views = view_runs(runs, ReportOptions{});
  ASSERT_TRUE(write_csv(views, dir / "csv").ok());
  auto slurp = [&](const char* f) {
    std::ifstream in(dir / "csv" / f);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  };
  std::string summary = slurp("summary.csv"), samples = slurp("samples.csv"),
              foot = slurp("footprint.csv");
  EXPECT_EQ(summary.substr(0, summary.find('\n')),
            "run_id,started_at,job_id,kernel,status,unit,phase,series,test,hz,n,min,median,net_"
            "median,avg,p90,p99,"
            "p999,max,stddev,jitter,base,base_series,median_ns,p99_ns,unjudged");
  // 2 runs x (7 + 7 + 6 series).
  EXPECT_EQ(std::count(summary.begin(), summary.end(), '\n'), 1 + 2 * 20);
  // Samples of bare and freertos (threadx has no capture): 6 x 64 + 32 each, both runs.
  EXPECT_EQ(std::count(samples.begin(), samples.end(), '\n'), 1 + 2 * 2 * (6 * 64 + 32));
  EXPECT_NE(
      samples.find(
          "20260101T000000Z-fixture,freertos-O2-tick1000-fpu0,instructions,idle,event_to_task,0,"),
      std::string::npos);
  // Kernel alone = image minus bare: freertos flash 26136 - 17832.
  // The options start with '-': written as text, never as a formula.
  EXPECT_NE(foot.find("freertos-O2-tick1000-fpu0,freertos,qemu-netduinoplus2,\"'-O2 "
                      "-g0\",1000,26120,16,23432,26136,23448,"
                      "8304,3088"),
            std::string::npos)
      << foot;
}

// report's memory does not grow with the captures (issue 35 item 7): past
// the samples it keeps, a capture is not read for plots and samples.csv.
TEST(ReportRawCapture, SamplesKeptAreBounded) {
  auto dir = testrun::temp_dir("raw-bound");
  auto root = testrun::write_run(dir, testrun::standard_run("r", "2026-01-01T00:00:00Z"));
  const auto raw = root / "jobs" / "bare-O2-tick1000-fpu0" / "attempt-1" / "capture.raw";
  auto all = read_raw_capture(raw);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_FALSE(all->series.empty());
  auto bounded = read_raw_capture(raw, 10);
  ASSERT_FALSE(bounded.ok());
  EXPECT_EQ(bounded.error().kind, ErrorKind::kBadInput);
  EXPECT_NE(bounded.error().message.find("more than 10 RAW samples"), std::string::npos)
      << bounded.error().message;
  std::filesystem::remove_all(dir);
}

// OWASP's CSV injection guidance: a field a spreadsheet would take as a
// formula is quoted with a leading ' (issue 35 item 9); numbers stay numbers.
TEST(ReportCsv, FieldsThatWouldBeFormulasAreText) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\")"), "\"'=HYPERLINK(\"\"http://x\"\")\"");
  EXPECT_EQ(csv_field("+cmd"), "\"'+cmd\"");
  EXPECT_EQ(csv_field("-O2 -g0"), "\"'-O2 -g0\"");
  EXPECT_EQ(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(csv_field("\tx"), "\"'\tx\"");
  EXPECT_EQ(csv_field("-12"), "-12");
  EXPECT_EQ(csv_field("-0.5"), "-0.5");
  EXPECT_EQ(csv_field("-"), "\"'-\"");
  EXPECT_EQ(csv_field("-1-1"), "\"'-1-1\"");
  EXPECT_EQ(csv_field("149"), "149");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field(""), "");
}

// The kernel-alone figure the run stored (against a bare image of the job's
// own options) wins over image minus the run's bare job; a stored error, or
// an older result without the field, falls back to that; without a bare job
// the stored figure is the only one.
// The reference kernel (the "(reference)" row, the job kernel-alone figures fall
// back to) is the one the run recorded (build.footprint_kernel.reference),
// else the catalog's: a reference port under another name needs no host
// change, and an old result is read against today's tree.
TEST(ReportFootprint, TheReferenceKernelIsTheRecordsElseTheCatalogs) {
  auto dir = testrun::temp_dir("footprint-ref");
  auto spec = testrun::standard_run("20260105T000000Z-fixture", "2026-01-05T00:00:00Z");
  spec.jobs.pop_back();
  spec.jobs[0].id = "refsched-O2-tick1000-fpu0";
  spec.jobs[0].kernel = "refsched";
  auto unrecorded = load_run(testrun::write_run(dir, spec));
  spec.id = "20260106T000000Z-fixture";
  spec.jobs[2].footprint_kernel = {{"error", "the refsched reference image did not build: ..."},
                                   {"reference", "refsched"}};
  auto recorded = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(unrecorded.ok() && recorded.ok());
  auto markdown = [](const rb::report::Run& run, const catalog::Catalog* today) {
    std::vector<rb::report::Run> one{run};
    ReportOptions o;
    o.catalog = today;
    return to_markdown(build_report(view_runs(one, o)));
  };
  const std::string ref_row = "| refsched-O2-tick1000-fpu0 | 17832 | 0 | 20360 | 17832 | 20360 | ";
  // threadx: image minus the refsched job (24048 - 17832, 22312 - 20360).
  const std::string threadx = "| 24048 | 22312 | 6216 | 1952 |";
  // Today's tree (bare is its reference): refsched is a kernel like any other.
  std::string md = markdown(*unrecorded, nullptr);
  EXPECT_NE(md.find(ref_row + "- | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 24048 | 22312 | - | - |"), std::string::npos) << md;
  // A tree whose reference port is refsched.
  catalog::Catalog tree;
  model::KernelSpec ref;
  ref.name = ref.port = "refsched";
  ref.reference = true;
  tree.kernels.push_back(ref);
  md = markdown(*unrecorded, &tree);
  EXPECT_NE(md.find(ref_row + "(reference) | (reference) |"), std::string::npos) << md;
  EXPECT_NE(md.find(threadx), std::string::npos) << md;
  // The record wins over today's tree.
  md = markdown(*recorded, nullptr);
  EXPECT_NE(md.find(ref_row + "(reference) | (reference) |"), std::string::npos) << md;
  EXPECT_NE(md.find(threadx), std::string::npos) << md;
  std::filesystem::remove_all(dir);
}

// Text from a run (a note, a name, a reason) is printed inert in Markdown.
TEST(ReportMarkdown, HtmlFromARunIsInert) {
  auto dir = testrun::temp_dir("render-html");
  auto spec = testrun::standard_run("20260101T000000Z-fixture", "2026-01-01T00:00:00Z");
  spec.jobs[3].reason = "<script>alert(1)</script> & <img src=x onerror=alert(2)>";
  spec.jobs[1].config["kernel_version"] = "<b>10</b>";
  auto root = testrun::write_run(dir, spec);
  auto run = load_run(root);
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::vector<rb::report::Run> runs;
  runs.push_back(std::move(*run));
  std::string md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("<b>"), std::string::npos);
  EXPECT_NE(md.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img"), std::string::npos)
      << md;
  // Terminal controls from a run (ESC, C1 CSI, U+202E) are escaped in every report.
  {
    auto spec2 = testrun::standard_run("20260101T000000Z-controls", "2026-01-01T00:00:00Z");
    spec2.jobs[3].reason =
        "\x1b[2J\xc2\x9b"
        "31m \xe2\x80\xaetxt.exe";
    auto root2 = testrun::write_run(dir, spec2);
    auto run2 = load_run(root2);
    ASSERT_TRUE(run2.ok()) << run2.error().message;
    std::vector<rb::report::Run> runs2;
    runs2.push_back(std::move(*run2));
    const auto doc = build_report(view_runs(runs2, ReportOptions{}));
    for (const std::string& out : {to_markdown(doc), to_html(doc)}) {
      EXPECT_EQ(out.find('\x1b'), std::string::npos);
      EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);
      EXPECT_EQ(out.find("\xe2\x80\xae"), std::string::npos);
      EXPECT_NE(out.find("[2J\\u{009b}31m \\u{202e}txt.exe"), std::string::npos) << out;
    }
  }
  std::filesystem::remove_all(dir);
  // Inside a closed code span HTML is literal already; an unmatched backtick opens nothing.
  EXPECT_EQ(md_inert("`<x>` <y>"), "`<x>` &lt;y&gt;");
  EXPECT_EQ(md_inert("a ` <script>"), "a ` &lt;script&gt;");
  EXPECT_EQ(md_cell("a|<b>"), "a\\|&lt;b&gt;");
}

TEST(ReportFootprint, PrefersTheStoredKernelAloneFigure) {
  auto dir = testrun::temp_dir("footprint");
  auto spec = testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z");
  spec.jobs.pop_back();  // no job without an image
  spec.jobs[1].footprint_kernel = {{"delta", {{"flash", 4148}, {"ram", 5844}}}, {"bare_key", "k"}};
  spec.jobs[2].footprint_kernel = {{"error", "the bare reference image did not build: ..."}};
  auto with_bare = load_run(testrun::write_run(dir, spec));
  spec.id = "20260104T000000Z-fixture";
  spec.jobs.erase(spec.jobs.begin());  // no bare job
  auto without_bare = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(with_bare.ok() && without_bare.ok());
  std::vector<rb::report::Run> runs;
  runs.push_back(std::move(*with_bare));
  auto md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  // freertos: stored (not 26136 - 17832 = 8304); threadx: stored error, so
  // image minus the bare job (24048 - 17832 = 6216, 22312 - 20360 = 1952).
  EXPECT_NE(
      md.find("| freertos-O2-tick1000-fpu0 | 26120 | 16 | 23432 | 26136 | 23448 | 4148 | 5844 |"),
      std::string::npos)
      << md;
  EXPECT_NE(
      md.find("| threadx-O2-tick1000-fpu0 | 24040 | 8 | 22304 | 24048 | 22312 | 6216 | 1952 |"),
      std::string::npos)
      << md;
  ASSERT_TRUE(write_csv(view_runs(runs, ReportOptions{}), dir / "csv").ok());
  std::ifstream in(dir / "csv" / "footprint.csv");
  std::stringstream csv;
  csv << in.rdbuf();
  EXPECT_NE(csv.str().find(",26120,16,23432,26136,23448,4148,5844\n"), std::string::npos)
      << csv.str();

  runs.clear();
  runs.push_back(std::move(*without_bare));
  md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_NE(md.find("| 26136 | 23448 | 4148 | 5844 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 24048 | 22312 | - | - |"), std::string::npos) << md;
  std::filesystem::remove_all(dir);
}

TEST(ReportHeadline, MarksKernelsWhoseApiChecksWereNotOff) {
  auto dir = testrun::temp_dir("checks");
  auto spec = testrun::standard_run("20260107T000000Z-fixture", "2026-01-07T00:00:00Z");
  std::vector<rb::report::Run> runs;
  auto plain = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(plain.ok());
  runs.push_back(std::move(*plain));
  std::string md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_EQ(md.find("†"), std::string::npos) << md;  // no checks= key: nothing marked

  spec.id = "20260108T000000Z-fixture";
  for (auto& j : spec.jobs) j.config["checks"] = "off";
  spec.jobs[2].config["checks"] = "partial";
  auto marked = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(marked.ok());
  runs.clear();
  runs.push_back(std::move(*marked));
  md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_NE(md.find("| threadx † | threadx-O2-tick1000-fpu0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| freertos | freertos-O2-tick1000-fpu0 |"), std::string::npos) << md;
  EXPECT_NE(md.find("`†` after a kernel: its API argument checks were not off"), std::string::npos)
      << md;
  std::filesystem::remove_all(dir);
}

TEST(ReportHeadline, MarksDeclaredUnequalWorkAndTheShareOfCallsServed) {
  auto dir = testrun::temp_dir("unequal");
  auto spec = testrun::standard_run("20260109T000000Z-fixture", "2026-01-09T00:00:00Z");
  auto run = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(run.ok());
  std::vector<rb::report::Run> runs;
  runs.push_back(std::move(*run));
  std::string md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_EQ(md.find("‡"), std::string::npos) << md;  // nothing declared: nothing marked

  // The record, not today's tree, says what is unequal: one job's result
  // declares two items, one of them on wake_latency alone.
  store::JobResult* threadx = nullptr;
  for (auto& r : runs.back().results)
    if (r.job.kernel == "threadx") threadx = &r;
  ASSERT_NE(threadx, nullptr);
  threadx->job.unequal.push_back({"a test on every switch", {"wake_latency"}, "first note"});
  threadx->job.unequal.push_back({"nothing timed", {}, "second note"});
  store::SeriesRecord* wake = nullptr;
  for (auto& s : threadx->series)
    if (s.name == "wake_latency") wake = &s;
  ASSERT_NE(wake, nullptr);
  wake->calls = wake->n + 1;
  wake->refused = 1;
  md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  // Marked in the headline's cell and in Every series, nowhere for freertos.
  EXPECT_NE(md.find(") ‡1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| wake_latency ‡1 |"), std::string::npos) << md;
  EXPECT_EQ(md.find("‡2 |"), std::string::npos) << md;  // no series holds item 2
  EXPECT_NE(md.find("‡1 `threadx`: a test on every switch (`wake_latency`). first note"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("‡2 `threadx`: nothing timed (no series (footprint, task layout)). second "
                    "note"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find(fmt::format("{} ({} of {} calls served)", wake->n, wake->n, wake->n + 1)),
            std::string::npos)
      << md;
  std::filesystem::remove_all(dir);
}

TEST(ReportReproducibility, ShowsLoadsVerdictAndMedianSpreadOnlyForRepeatedJobs) {
  auto dir = testrun::temp_dir("repro");
  auto spec = testrun::standard_run("20260105T000000Z-fixture", "2026-01-05T00:00:00Z");
  std::vector<rb::report::Run> runs;
  auto plain = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(plain.ok());
  runs.push_back(std::move(*plain));
  EXPECT_EQ(to_markdown(build_report(view_runs(runs, ReportOptions{}))).find("## Reproducibility"),
            std::string::npos);

  spec.id = "20260106T000000Z-fixture";
  spec.jobs[1].reproducibility = {
      {"loads", 3},
      {"summary", "3 loads differ beyond the reproducibility tolerance: wake_latency max"},
      {"tolerance", {{"origin", "matrix reproducibility:"}}},
      {"beyond", {{{"series", "wake_latency"}, {"statistic", "max"}}}}};
  spec.jobs[1].spread = {
      {{"name", "wake_latency"}, {"phase", ""}, {"statistics", {{"median", {{"range", 3}}}}}},
      {{"name", "event_to_task"}, {"phase", "idle"}, {"statistics", {{"median", {{"range", 0}}}}}}};
  auto repeated = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(repeated.ok());
  runs.clear();
  runs.push_back(std::move(*repeated));
  const std::string md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_NE(md.find("## Reproducibility"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| " + spec.jobs[1].id +
              " | 3 | 3 loads differ beyond the reproducibility tolerance: wake_latency max | "
              "matrix reproducibility: | 3 | - | - | 0 | - | wake_latency max |"),
      std::string::npos)
      << md;
  std::filesystem::remove_all(dir);
}

TEST(ReportSvg, CdfPointsStepThroughDistinctValues) {
  std::vector<uint64_t> v{5, 5, 5, 7, 9, 9};
  auto p = cdf_points(v, 100);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0], (std::pair<double, double>{5, 0}));
  EXPECT_EQ(p[1], (std::pair<double, double>{5, 0.5}));
  EXPECT_EQ(p[2].first, 7);
  EXPECT_EQ(p[3], (std::pair<double, double>{9, 1}));
  std::vector<uint64_t> many;
  for (uint64_t i = 0; i < 10000; ++i) many.push_back(i);
  auto q = cdf_points(many, 50);
  EXPECT_LE(q.size(), 50u);
  EXPECT_EQ(q.front(), (std::pair<double, double>{0, 0}));
  EXPECT_EQ(q.back(), (std::pair<double, double>{9999, 1}));
  EXPECT_TRUE(cdf_points({}, 10).empty());
}

TEST(ReportSvg, EscapesLabelsAndHandlesNoData) {
  Plot p;
  p.title = "a<b & \"c\"";
  std::string s = render_svg(p);
  EXPECT_NE(s.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_NE(s.find("no data"), std::string::npos);
  EXPECT_EQ(axis_label(1000004, 2), "1000004");
  EXPECT_EQ(axis_label(0.25, 0.05), "0.25");
}

TEST(ReportSvg, LogScaleCountsHaveAGridLinePerPowerOfTen) {
  Plot p;
  p.title = "histogram";
  p.y_log = true;
  p.lines.push_back({"t0", {{10, 1}, {11, 500}, {12, 0}, {13, 10}}, true});
  std::string s = render_svg(p);
  // From 1 up to the power of ten above 500: labels 1, 10, 100, 1e3, none linear between.
  for (const char* label : {">1</text>", ">10</text>", ">100</text>", ">1e3</text>"})
    EXPECT_NE(s.find(label), std::string::npos) << label;
  EXPECT_EQ(s.find(">1e4</text>"), std::string::npos);
  EXPECT_EQ(s.find(">200</text>"), std::string::npos);
  // A count of 10 sits a third of the way up from 1 to 1000, not at 1 %.
  const double top = 34, height = 320 - 34 - 46;
  auto y_of = [&](double v) { return top + height - std::log10(v) / 3 * height; };
  EXPECT_NE(s.find(fmt::format("{:.1f}", y_of(10))), std::string::npos) << s;
}

// A run with sleep_wake (phase wfi), which the emulated board declares the
// bench moves (UNSTABLE) and, for its entry, cannot measure; `recorded`:
// result.json carries the board record, else it is older than the record.
testrun::RunSpec sleep_run(const std::string& id, bool recorded) {
  testrun::RunSpec r;
  r.id = id;
  r.started_at = "2026-01-03T00:00:00Z";
  r.finished_at = "2026-01-03T00:00:59Z";
  const std::tuple<const char*, uint32_t, uint64_t> kJobs[] = {{"bare", 10, 3},
                                                               {"freertos", 20, 10}};
  for (const auto& [kernel, seed, scale] : kJobs) {
    testrun::JobSpec j{std::string(kernel) + "-O2-tick1000-fpu0", kernel};
    j.series = testrun::kernel_series(seed, scale);
    j.series.push_back({"sleep_wake", "wfi", "sleep_wake_entry",
                        testrun::samples(seed + 7, 64, 5, 1), std::nullopt});
    j.series.push_back({"sleep_wake", "wfi", "sleep_wake",
                        testrun::samples(seed + 8, 64, 150 * scale / 10, 4), std::nullopt});
    if (!recorded) j.board = std::nullopt;
    r.jobs.push_back(j);
  }
  return r;
}

std::string markdown_of(const std::filesystem::path& root, const catalog::Catalog* today) {
  auto run = load_run(root);
  if (!run.ok()) return "load_run: " + run.error().message;
  std::vector<rb::report::Run> one;
  one.push_back(std::move(*run));
  ReportOptions o;
  o.catalog = today;
  return to_markdown(build_report(view_runs(one, o)));
}

// A firmware tree whose emulated board declares other things than the
// fixture's record: sleep_wake measured, wake_latency moved by the bench.
catalog::Catalog changed_tree() {
  catalog::Catalog c;
  model::BoardInfo b;
  b.name = "qemu-netduinoplus2";
  b.unstable = {{"wake_latency", "a declaration made after the run"}};
  c.boards.push_back(b);
  // Every loadable tree names exactly one reference port (the catalog
  // refuses others); a result without build.footprint_kernel takes it from
  // the tree, so this one keeps bare's.
  model::KernelSpec ref;
  ref.name = ref.port = "bare";
  ref.reference = true;
  c.kernels.push_back(ref);
  return c;
}

// The record is the truth (issue 27 item 4): a run's report shows the
// board's declarations as the run recorded them, whatever the firmware
// tree declares today.
TEST_F(ReportRender, RecordMatchesGoldenWhateverTheTreeDeclares) {
  auto root = testrun::write_run(dir, sleep_run("20260103T000000Z-sleep", true));
  const std::string md = markdown_of(root, nullptr);
  expect_golden("report-record.md", md);
  // UNSTABLE is shown marked in the seed table and Every series.
  EXPECT_NE(md.find("(unstable)"), std::string::npos);
  EXPECT_NE(md.find("`sleep_wake` on board `qemu-netduinoplus2`: unstable on this bench"),
            std::string::npos);
  EXPECT_EQ(md.find("older than the board record"), std::string::npos);
  const catalog::Catalog changed = changed_tree();
  EXPECT_EQ(markdown_of(root, &changed), md);
}

// A result older than the record falls back to today's tree, with a note;
// a board today's tree does not know leaves every series unmarked, and says so.
TEST(ReportRecord, OldResultsFallBackToTodaysTreeWithANote) {
  auto dir = testrun::temp_dir("render-old");
  auto root = testrun::write_run(dir, sleep_run("20260103T000000Z-old", false));
  const catalog::Catalog changed = changed_tree();
  const std::string md = markdown_of(root, &changed);
  EXPECT_NE(md.find("These results are older than the board record: their board's declarations "
                    "are today's firmware tree's"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("`wake_latency` on board `qemu-netduinoplus2`: unstable on this bench: a "
                    "declaration made after the run"),
            std::string::npos);
  EXPECT_EQ(md.find("`sleep_wake` on board"), std::string::npos);
  catalog::Catalog none;
  const std::string unknown = markdown_of(root, &none);
  EXPECT_NE(unknown.find("today's firmware tree does not know their board"), std::string::npos);
  EXPECT_EQ(unknown.find(" on board `qemu-netduinoplus2`:"), std::string::npos);
  // With the record, the same run reads as it was made.
  auto recorded = testrun::write_run(dir, sleep_run("20260103T000000Z-rec", true));
  EXPECT_NE(markdown_of(recorded, &none).find("`sleep_wake` on board"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The tickless axis (issue 29 item 3): its table shows the unstable
// sleep_wake marked, its plots leave it out; a measured series is plotted.
TEST(ReportRecord, TicklessAxisShowsUnstableMarkedAndNeverPlotsIt) {
  auto dir = testrun::temp_dir("render-tickless");
  testrun::RunSpec spec = sleep_run("20260104T000000Z-tickless", true);
  spec.jobs[0].id = "freertos-O2-tick1000-fpu0";
  spec.jobs[0].kernel = "freertos";
  spec.jobs[1].id = "freertos-O2-tick1000-fpu0-tickless";
  spec.jobs[0].config["tickless"] = "0";
  spec.jobs[1].config["tickless"] = "1";
  auto run = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::vector<rb::report::Run> one;
  one.push_back(std::move(*run));
  const Document d = build_report(view_runs(one, ReportOptions{}));
  const std::string md = to_markdown(d);
  ASSERT_NE(md.find("### tickless idle (CONFIG tickless)"), std::string::npos) << md;
  const size_t at = md.find("| freertos | wfi/sleep_wake |");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string row = md.substr(at, md.find('\n', at) - at);
  EXPECT_NE(row.find("47 (unstable) | 151 (unstable) |"), std::string::npos) << row;
  bool wake_plotted = false, sleep_plotted = false;
  for (const auto& b : d.blocks) {
    if (b.kind != Block::Kind::kPlot) continue;
    wake_plotted |= b.text.find("wake_latency: median against tickless idle") != std::string::npos;
    sleep_plotted |= b.text.find("sleep_wake: median against") != std::string::npos;
  }
  EXPECT_TRUE(wake_plotted);
  EXPECT_FALSE(sleep_plotted);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::report

namespace rb::report {
namespace {

// An edges.json as `rtosbench edges` writes it, for one job's attempt: the
// wake_latency series agrees, event_to_task@idle disagrees.
nlohmann::json edges_json() {
  auto series = [](const char* phase, const char* name, const char* status, double dwt,
                   double edge) {
    return nlohmann::json{
        {"phase", phase},
        {"name", name},
        {"kind", "grid"},
        {"status", status},
        {"n", 4},
        {"paired", 4},
        {"beyond_tolerance", std::string(status) == "disagree" ? 4 : 0},
        {"dwt_ns", {{"median", dwt}, {"p99", dwt + 10}, {"max", dwt + 20}}},
        {"edge_ns", {{"median", edge}, {"p99", edge + 10}, {"max", edge + 20}}},
        {"diff_ns", {{"median", edge - dwt}, {"p99", edge - dwt + 2}, {"max", edge - dwt + 4}}},
        {"diff_cycles", {{"median", (edge - dwt) * 0.168}, {"p99", 0}, {"max", 0}}},
        {"pairs",
         {{"dwt_ns", {dwt, dwt + 5, dwt + 10, dwt + 20}},
          {"edge_ns", {edge, edge + 5, edge + 10, edge + 20}}}},
        {"missing", nlohmann::json::array()},
        {"extra", nlohmann::json::array()}};
  };
  return {{"status", "disagree"},
          {"samplerate", 25000000},
          {"tolerance_ns", 130.0},
          {"series",
           {series("", "wake_latency", "agree", 700, 730),
            series("idle", "event_to_task", "disagree", 800, 1100)}}};
}

TEST(ReportEdges, TableBesideTheDwtSeriesAndBothDistributionsInOnePlot) {
  auto dir = testrun::temp_dir("render-edges");
  auto root = testrun::write_run(
      dir, testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z"));
  std::ofstream(root / "jobs" / "freertos-O2-tick1000-fpu0" / "attempt-1" / "edges.json")
      << edges_json().dump();
  auto r = load_run(root);
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<rb::report::Run> runs;
  runs.push_back(std::move(*r));
  auto doc = build_report(view_runs(runs, ReportOptions{}));
  const std::string md = to_markdown(doc);
  const auto at = md.find("## Edges (second ruler)");
  ASSERT_NE(at, std::string::npos) << md;
  const auto end = md.find("\n## ", at + 1);
  expect_golden("report-edges.md", md.substr(at, end == std::string::npos ? end : end - at));
  const std::string html = to_html(doc);
  EXPECT_NE(html.find("freertos-O2-tick1000-fpu0 idle/event_to_task: DWT and edges"),
            std::string::npos);
  // A run without edges.json has no such section.
  std::filesystem::remove(root / "jobs" / "freertos-O2-tick1000-fpu0" / "attempt-1" / "edges.json");
  auto plain = load_run(root);
  ASSERT_TRUE(plain.ok());
  std::vector<rb::report::Run> plain_runs;
  plain_runs.push_back(std::move(*plain));
  EXPECT_EQ(to_markdown(build_report(view_runs(plain_runs, ReportOptions{}))).find("## Edges"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// A job whose second ruler failed keeps its DWT figures in the report (they
// verified OK), and the report says why there is no edge comparison.
TEST(ReportEdges, AnAnalyzerFailureShowsTheDwtFiguresAndSaysSo) {
  auto dir = testrun::temp_dir("render-analyzer");
  auto spec = testrun::standard_run("20260104T000000Z-fixture", "2026-01-04T00:00:00Z");
  ASSERT_EQ(spec.jobs[1].id, "freertos-O2-tick1000-fpu0");
  spec.jobs[1].status = "ANALYZER_OVERFLOW";
  spec.jobs[1].reason = "the DWT capture verified OK; the analyzer's capture ended early";
  auto r = load_run(testrun::write_run(dir, spec));
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<rb::report::Run> runs;
  runs.push_back(std::move(*r));
  const std::string md = to_markdown(build_report(view_runs(runs, ReportOptions{})));
  EXPECT_NE(md.find("Jobs whose second ruler failed"), std::string::npos) << md;
  EXPECT_NE(md.find("`freertos-O2-tick1000-fpu0`: ANALYZER_OVERFLOW"), std::string::npos);
  const auto failed = md.find("Jobs that did not end OK");
  EXPECT_TRUE(failed == std::string::npos ||
              md.find("freertos-O2-tick1000-fpu0", failed) > md.find("Jobs whose second ruler"));
  // Its headline figures are there: a row of the headline table names the job.
  const auto headline = md.find("| freertos");
  EXPECT_NE(headline, std::string::npos) << md;
  std::filesystem::remove_all(dir);
}

TEST(ReportEdges, RegressFailsADisagreeingSeriesWithBothNumbers) {
  auto dir = testrun::temp_dir("regress-edges");
  auto root = testrun::write_run(
      dir, testrun::standard_run("20260103T000000Z-fixture", "2026-01-03T00:00:00Z"));
  auto base = load_run(root);
  ASSERT_TRUE(base.ok());
  const RunSnapshot before = snapshot_of(*base);
  std::ofstream(root / "jobs" / "freertos-O2-tick1000-fpu0" / "attempt-1" / "edges.json")
      << edges_json().dump();
  auto cur = load_run(root);
  ASSERT_TRUE(cur.ok());
  RegressReport rep = regress(before, snapshot_of(*cur), Tolerances::defaults(), {});
  EXPECT_EQ(exit_code(rep), kRegressFail);
  const RegressCase *bad = nullptr, *good = nullptr;
  for (const auto& c : rep.cases) {
    if (c.job_id != "freertos-O2-tick1000-fpu0") continue;
    if (c.name == "idle/event_to_task.edges") bad = &c;
    if (c.name == "wake_latency.edges") good = &c;
  }
  ASSERT_TRUE(bad && good);
  EXPECT_EQ(bad->outcome, CaseOutcome::kRegression);
  EXPECT_NE(bad->message.find("dwt median 800.0 ns"), std::string::npos) << bad->message;
  EXPECT_NE(bad->message.find("edges median 1100.0 ns"), std::string::npos) << bad->message;
  EXPECT_EQ(good->outcome, CaseOutcome::kPass);
  // Without edges.json the failures are the fixture's own (its BUILD_ERROR job): one fewer.
  EXPECT_EQ(regress(before, before, Tolerances::defaults(), {}).failures() + 1, rep.failures());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rb::report
