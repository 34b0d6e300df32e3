#pragma once
// Loading and validating matrix and bench files. The shape of each file is
// its JSON Schema (docs/schema/matrix.schema.json, bench.schema.json, read by
// valijson); what a schema cannot say (a board the firmware tree has, a
// flasher the board names, a kernel's pin) is checked here against the
// firmware tree's catalog. Every problem of a file is collected before
// failing, each as `file:line:column: message`.
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "matrix/model.h"
#include "util/result.h"
#include "util/yaml_doc.h"

namespace rb::matrix {

using rb::Diagnostic;

// The outcome of loading one file: the model when `errors` is empty.
template <typename T>
struct Loaded {
  T value;
  std::vector<Diagnostic> errors;
  bool ok() const { return errors.empty(); }
};

// Reads and validates a matrix. Relative paths in it (bench, firmware,
// kernel sources) are resolved against the matrix file's directory; its
// kernels and boards are the firmware tree's (catalog::load). An unreadable
// file or a YAML syntax error is one diagnostic.
// `firmware`, when set, replaces the matrix's `firmware:` (run --firmware).
Loaded<Matrix> load_matrix(const std::filesystem::path& file,
                           const std::filesystem::path& firmware = {});
Loaded<Matrix> parse_matrix(const std::string& text, const std::filesystem::path& file,
                            const std::filesystem::path& firmware = {});

// The `edges:` key alone of a matrix's text (a run's matrix.yaml snapshot),
// checked against the matrix schema, without the firmware tree the rest of
// the matrix needs (rtosbench edges).
Loaded<EdgesSpec> parse_matrix_edges(const std::string& text, const std::filesystem::path& file);

// A bench's boards are checked against `catalog` (the matrix's firmware
// tree); nullptr: the default tree (catalog::default_firmware_dir).
Loaded<Bench> load_bench(const std::filesystem::path& file,
                         const catalog::Catalog* catalog = nullptr);
Loaded<Bench> parse_bench(const std::string& text, const std::filesystem::path& file,
                          const catalog::Catalog* catalog = nullptr);

// The loads per job on a bench that has real hardware, as the peer publishes.
inline constexpr int kHardwareLoads = 5;

// The loads per job when the matrix gives no `loads:`: kHardwareLoads when an
// instance of a board the matrix runs on is not emulated (its flasher is a
// probe's, on this host or a LAVA worker), else 1 (QEMU repeats to the
// instruction). m.boards must be filled.
int default_loads(const Matrix& m, const Bench& bench);

// The matrix's boards when it names none: every board type of `bench`, in
// the bench's order; and its loads per job when it names none
// (default_loads). Error (kUnavailable) when the bench has no instance of a
// board the matrix names.
Status for_boards(Matrix& m, const Bench& bench);

// Applies the sweep `name` of m.sweeps to m (its variants, samples, warmup,
// excludes); ErrorKind::kUsage naming the sweeps there are when m has none
// of that name.
Status select_sweep(Matrix& m, const std::string& name);

// The default firmware tree's catalog, read once; throws std::runtime_error
// when that tree has problems (a broken checkout).
const catalog::Catalog& default_catalog();

// The matrix schema with its variants and tolerances made from the axis and
// statistic tables (what `rtosbench schema matrix` prints).
const nlohmann::json& matrix_schema();

}  // namespace rb::matrix
