#pragma once
// Variant expansion: kernels x boards x the variant axes (model::axes(), in
// table order), with stable readable ids (repeats are loads inside a job,
// not jobs).
#include <vector>

#include "matrix/model.h"

namespace rb::matrix {

// Every job of the matrix that m.only and m.exclude select, for m.boards
// (a matrix with no boards of its own takes the bench's: set them first).
// The id is model::job_id, with "-<board>" appended when the matrix runs on
// more than one board type. A kernel without a port directory still gets
// its jobs, marked port_exists=false with the reason.
std::vector<Job> expand_jobs(const Matrix& m);

// The CONFIG pins a capture of `kernel` on `board` is verified against, in
// the order each may override the one before: the board's facts
// (RB_BOARD_EXPECT_*) with the kernel CPU port the kernel's recipe names for
// the board's core (port_variant, from RB_PORT_CPUS), the matrix's `expect:`, `fixed` (what the job
// itself fixes: its variant, nonce, samples), then the kernel's own exceptions (kernel.yaml
// `expect:`; a null removes a pin).
std::map<std::string, std::string> declared_pins(const Matrix& m, const KernelSpec& kernel,
                                                 const std::string& board,
                                                 const std::map<std::string, std::string>& fixed);

// The jobs whose id matches a glob of `only` (all when it is empty) and no
// glob of `exclude` (fnmatch(3): `*`, `?`, `[...]`), in their order.
std::vector<Job> select_jobs(std::vector<Job> jobs, const std::vector<std::string>& only,
                             const std::vector<std::string>& exclude);

}  // namespace rb::matrix
