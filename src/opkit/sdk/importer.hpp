#pragma once

#include "opkit/sdk/sdk.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::sdk {

// What an SDK keeps of a wheel or package folder, found by what a file is,
// not by one hard-coded prefix (tensorflow/, tensorflow_core/,
// tensorflow-<v>.data/purelib/tensorflow/ all match). A framework whose table
// (configs/frameworks/) has an `sdk:` section (torch) is classified by it: its
// package folder must be the path's first part.
enum class EntryKind
{
  skip,
  header,
  framework_library,
  metadata,
  wheel_info,
  build_info,
  // A framework's version file named by its table's sdk: section
  // (torch/version.py, kept as version.py).
  version_file,
  // A file of its sdk: section's fact_files (torch/utils/cpp_extension.py),
  // kept as facts/<file name>.
  fact_file,
  // A library `import tensorflow` loads into the Python process
  // (_pywrap_tensorflow_internal.so, libtensorflow_cc.so.2): read from a
  // local wheel for its symbol index only, never kept nor fetched (hundreds of MB).
  process_library
};

struct EntryPlan
{
  EntryKind kind = EntryKind::skip;
  std::string dest; // relative to the SDK root; empty for skip
};

// An archive path's parts, without empty and "." ones ("./a//b" is a, b).
std::vector<std::string>
archive_path_parts(std::string_view path);

// Classifies one path. A kept path whose destination would leave the SDK
// folder ("tensorflow/include/../../x") is Error(usage): the archive is refused.
EntryPlan
classify_entry(std::string_view path);

// Whether a dist-info owns the TensorFlow framework, rather than being a
// sibling such as tensorflow-io-gcs-filesystem or tensorflow-estimator: its
// RECORD lists the framework library or tensorflow/__init__.py (also under
// tensorflow_core/ or a wheel's .data/purelib/), or its top_level.txt names
// tensorflow. `record` and `top_level` are the files' texts ("" when absent).
bool
dist_info_owns_framework(std::string_view record, std::string_view top_level);

// The *.dist-info folder in `site_packages` that owns the framework (the
// first in name order when several claim it); empty when none does.
std::filesystem::path
find_framework_dist_info(const std::filesystem::path& site_packages);

// Imports a TensorFlow SDK (or, from a wheel, a PyTorch one: what
// configs/frameworks/torch.yaml's sdk: section keeps, facts from
// sdk/torch_facts) from an official wheel (.whl) or an installed
// package folder into the store, atomically. Replaces an SDK of the same id.
// A wheel's kept members are checked against its RECORD (see RecordCheck)
// before anything reads them; a partial wheel (sdk fetch's: the kept members
// and RECORD) imports as the whole one does. `process_libraries`: also index
// what `import tensorflow` loads (sdk add); sdk fetch does not, so a whole
// download gives the same SDK as a ranged one.
Sdk
import_sdk(const std::filesystem::path& source, bool process_libraries = true);

} // namespace opkit::sdk
