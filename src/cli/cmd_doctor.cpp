// `rtosbench doctor [--matrix FILE] [--bench FILE] [--probe]`: is this machine ready?
#include <fmt/core.h>

#include "cli/commands.h"
#include "doctor/doctor.h"
#include "kernels/source.h"
#include "matrix/load.h"
#include "util/process.h"

namespace rb::cli {

namespace {

struct DoctorArgs {
  std::string matrix;
  std::string bench;
  std::vector<std::string> kernel_sources;
  std::string kernel_cache;
  std::string sys_root = "/";
  std::string proc_root = "/proc";
  bool probe = false;
  bool json = false;
};

int doctor_command(const DoctorArgs& a) {
  doctor::DoctorInputs in;
  in.sys_root = a.sys_root;
  in.proc_root = a.proc_root;
  in.probe_targets = a.probe;
  std::vector<matrix::Diagnostic> errors;
  if (!a.matrix.empty()) {
    auto lm = matrix::load_matrix(a.matrix);
    if (!lm.ok()) {
      errors.insert(errors.end(), lm.errors.begin(), lm.errors.end());
    } else {
      in.matrix = lm.value;
    }
  }
  std::string bench_file = a.bench;
  if (bench_file.empty() && in.matrix && !in.matrix->bench.empty())
    bench_file = in.matrix->bench.string();
  if (!bench_file.empty()) {
    auto lb = matrix::load_bench(bench_file);
    if (!lb.ok()) {
      errors.insert(errors.end(), lb.errors.begin(), lb.errors.end());
    } else {
      in.bench = lb.value;
    }
  }
  if (!errors.empty()) {
    fail(make_error(ErrorKind::kUsage,
                    fmt::format("{} error(s) in the matrix or bench", errors.size())),
         errors);
  }
  for (const auto& ks : a.kernel_sources) {
    auto o = kernels::parse_override(ks);
    if (!o.ok()) fail(make_error(ErrorKind::kUsage, o.error().message));
    in.kernel_options.overrides[o->first] = o->second;
  }
  in.kernel_options.cache_dir =
      a.kernel_cache.empty() ? kernels::default_cache_dir() : std::filesystem::path(a.kernel_cache);
  auto processes = make_posix_runner();
  auto findings = doctor::run_doctor(in, *processes);
  if (a.json) {
    fmt::print("{}\n", doctor::to_json(findings).dump(2));
  } else {
    print_safe(stdout, "{}", doctor::format_findings(findings));
  }
  return doctor::has_errors(findings) ? 1 : kExitOk;
}

}  // namespace

std::function<int()> add_doctor(CLI::App& app) {
  auto a = std::make_shared<DoctorArgs>();
  app.add_option("--matrix", a->matrix,
                 "check the toolchain pin and kernel sources of this matrix");
  app.add_option("--bench", a->bench,
                 "check the probes, ports and tools of this bench (default: the matrix's)");
  app.add_option("--kernel-source", a->kernel_sources,
                 "NAME=PATH: a local checkout of kernel NAME (repeatable)");
  app.add_option("--kernel-cache", a->kernel_cache,
                 "kernel source cache (default ~/.cache/rtosbench/kernels)");
  app.add_option("--sys-root", a->sys_root, "read /sys and /dev under this root (tests)")
      ->group("");
  app.add_option("--proc-root", a->proc_root, "read other processes under this root (tests)")
      ->group("");
  app.add_flag("--probe", a->probe,
               "also read each board's DBGMCU_IDCODE through its flash tool (the target answers)");
  app.add_flag("--json", a->json, "print the findings as JSON");
  return [a] { return doctor_command(*a); };
}

}  // namespace rb::cli
