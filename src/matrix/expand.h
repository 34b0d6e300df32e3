#pragma once
// Variant expansion: kernels x opt x tick x fpu x checks, in matrix order,
// with stable readable ids (repeats are loads inside a job, not jobs).
#include <vector>

#include "matrix/model.h"

namespace rb::matrix {

// "-O2 -g0" -> "O2", "-Os" -> "Os"; flags without an -O level are reduced to
// [A-Za-z0-9]; the result only ever holds [A-Za-z0-9], so the id stays one
// file name (docs/matrix.md, "Strings the tool passes on").
std::string opt_id(const std::string& opt);

// The job id of one variant: <kernel>-<opt id>-tick<hz>-fpu<0|1>, with
// "-checks" appended when the kernels' API checks are on, "-ram" with code in
// RAM and "-tickless" with the kernel's tickless idle (each default adds
// nothing, so the ids of earlier runs stay what they were).
std::string job_id(const std::string& kernel, const std::string& opt_id, int tick_hz,
                   int fpu_context, const std::string& checks, int ramfunc = 0, int tickless = 0);

// Every job of the matrix that m.only and m.exclude select. A kernel whose
// firmware/ports/<port>/port.cmake is missing still gets its jobs, marked
// port_exists=false with the reason.
std::vector<Job> expand_jobs(const Matrix& m);

// The jobs whose id matches a glob of `only` (all when it is empty) and no
// glob of `exclude` (fnmatch(3): `*`, `?`, `[...]`), in their order.
std::vector<Job> select_jobs(std::vector<Job> jobs, const std::vector<std::string>& only,
                             const std::vector<std::string>& exclude);

}  // namespace rb::matrix
