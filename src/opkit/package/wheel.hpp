#pragma once

#include "opkit/package/package.hpp"
#include "opkit/package/wheel_tag.hpp"
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::package {

struct WheelOptions
{
  std::vector<std::string> tf_specs; // default: opkit.yaml's targets
  std::string requirement;           // a Requires-Dist line; default: none (see docs/packaging.md)
  std::filesystem::path output_dir;  // default: <project>/dist
  std::filesystem::path build_root;
  bool dry_run = false; // compute everything, write nothing
};

struct WheelResult
{
  std::filesystem::path file;
  std::string requirement;            // empty: the wheel requires no TensorFlow
  PlatformTag platform;               // the platform tag and each candidate policy's verdict
  std::vector<std::string> libraries; // paths inside the wheel
  std::vector<PackedFile> members;    // every file in the wheel, sorted, RECORD last
  bool written = false;               // false with dry_run
};

// A platform wheel (py3-none-<the oldest manylinux tag its libraries pass,
// else linux_<arch>>) holding the Python wrapper as the package <name> (its
// __init__.py refuses a TensorFlow the wheel carries no library for), a
// library per built TF version under <name>/tf-<version>/, and a dist-info
// with METADATA (no TensorFlow requirement unless one is given), WHEEL,
// RECORD and opkit-manifest.json.
WheelResult
package_wheel(const project::Manifest& manifest, const WheelOptions& options);

// python/<name>_ops.py, the wrapper package_wheel packs: Error(usage) when it
// is missing, saying when the project's template writes none (easyrec-layer).
// Asked before anything is built.
std::filesystem::path
require_wrapper(const project::Manifest& manifest);

// For a tree with its own Python package (its libraries' python_module:
// extension_cpp._C): a wheel per framework release and Python, holding the
// package's own Python files and each library where the package imports it
// (extension_cpp/_C.cpython-310-x86_64-linux-gnu.so), versioned
// <version>+<framework><release> and requiring that release (torch==2.5.1)
// unless a requirement is given. No wrapper: the package is its own.
std::vector<WheelResult>
package_own_wheels(const project::Manifest& manifest, const WheelOptions& options);

// The tree's own Python package: opkit.yaml's `package:`, else the package
// its libraries' python_module names; "" for none. Two packages: Error(usage).
std::string
own_package(const project::Manifest& manifest);

// "sha256=<urlsafe base64, no padding>" as RECORD wants it.
std::string
record_hash(const std::string& sha256_base64);

} // namespace opkit::package
