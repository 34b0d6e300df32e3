#pragma once
// A RUN argument of `report`, `diff` and `regress`: a run directory, a
// baseline file, or a bundle (`rtosbench bundle`), which is extracted into a
// private temporary directory that lives as long as this object.
#include <memory>
#include <string>

#include "bundle/bundle.h"
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

}  // namespace rb::cli
