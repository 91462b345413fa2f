#pragma once

#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::package {

struct WheelOptions
{
  std::vector<std::string> tf_specs; // default: opkit.yaml's targets
  std::string requirement;           // default: the SDKs' distribution with a version range
  std::filesystem::path output_dir;  // default: <project>/dist
  std::filesystem::path build_root;
};

struct WheelResult
{
  std::filesystem::path file;
  std::string requirement;
  std::vector<std::string> libraries; // paths inside the wheel
};

// A platform wheel (py3-none-linux_<arch>) holding the Python wrapper as the
// package <name>, a library per built TF version under <name>/tf-<version>/,
// and a dist-info with METADATA (with a TensorFlow requirement), WHEEL, RECORD
// and opkit-manifest.json.
WheelResult
package_wheel(const project::Manifest& manifest, const WheelOptions& options);

// "sha256=<urlsafe base64, no padding>" as RECORD wants it.
std::string
record_hash(const std::string& sha256_base64);

} // namespace opkit::package
