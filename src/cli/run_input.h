#pragma once
// A RUN argument of `report`, `diff` and `regress`: a run directory, a
// baseline file, or a bundle (`rtosbench bundle`), which is extracted into a
// private temporary directory that lives as long as this object.
#include <memory>
#include <string>

#include "bundle/bundle.h"
#include "report/snapshot.h"
#include "report/tolerance.h"
#include "util/result.h"

namespace rb::cli {

struct RunInput {
  std::string path;   // what to read: the argument, or the bundle's extracted run directory
  std::string shown;  // how to name it: the argument, "(bundle)" added for a bundle
  std::unique_ptr<bundle::Extracted> bundle;
};

// A bundle is opened by bundle::open_run (refused, naming the member, when
// any member fails MANIFEST); anything else is passed on as it is.
Result<RunInput> open_run_input(const std::string& arg);

// The tolerances `diff` and `regress` judge `run` by: --tolerances FILE, else
// the run's matrix snapshot, else the built-in ones. An error fails as usage.
report::Tolerances tolerances_for(const std::string& file, const report::RunSnapshot& run);

}  // namespace rb::cli
