#include "cli/commands.h"

#include <array>

#include "util/atomic_write.h"

namespace rb::cli {

void fail(Error error, const std::vector<Diagnostic>& diagnostics) {
  std::vector<std::string> lines;
  for (const auto& d : diagnostics) lines.push_back(d.format());
  fail(std::move(error), std::move(lines));
}

void write_output(const std::string& file, const std::string& doc) {
  if (file == "-") {
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fflush(stdout);
  } else if (auto s = write_file_atomic(file, doc); !s.ok()) {
    fail(Error{s.error().message, ErrorKind::kCannotWrite});
  }
}

std::span<const Command> commands() {
  static const std::array kCommands{
      Command{"verify", "check a captured benchmark log and re-derive every statistic from RAW",
              add_verify},
      Command{"run", "build, flash, capture and verify every job of a test matrix on a bench",
              add_run},
      Command{"doctor", "check toolchain, flash tools, probes, serial ports and kernel sources",
              add_doctor},
      Command{"smoke", "first light on a bench: a ruler-only image on each board, what it says",
              add_smoke},
      Command{"diff", "compare two runs statistic by statistic against tolerances", add_diff},
      Command{"regress", "check a run against a baseline; JUnit XML and Markdown for CI",
              add_regress},
      Command{"history", "record runs in the SQLite history and show a metric's trend",
              add_history},
      Command{"report", "Markdown, self-contained HTML and CSV reports of one or more runs",
              add_report},
      Command{"bundle", "a run as one publishable file: tar.zst with a SHA-256 MANIFEST",
              add_bundle},
      Command{"check", "re-verify a bundle: MANIFEST, every capture, every statistic", add_check},
      Command{"kernels", "the kernel ports, their pins and sources (kernel.yaml, the kernel cache)",
              add_kernels},
      Command{"import", "other tools' results as a run directory: cyclictest's histogram or JSON",
              add_import},
      Command{"footprint", "flash and RAM of a kernel alone: a kernel build minus the bare build",
              add_footprint},
      Command{"edges", "a logic analyzer's capture of the edge variant against the DWT samples",
              add_edges},
  };
  return kCommands;
}

}  // namespace rb::cli
