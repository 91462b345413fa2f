#pragma once

#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::package {

struct EasyRecOptions
{
  std::string version;               // the resource version; default: easy_rec/version.py
  std::filesystem::path easyrec_dir; // the user's EasyRec checkout; empty: ops overlay only
  std::vector<std::string> tf_specs; // default: opkit.yaml's targets
  std::string flavor;                // "", "pai" (PAI-TF 1.12), "deeprec" (DeepRec 1.15)
  std::filesystem::path output_dir;  // default: <project>/dist
  std::filesystem::path build_root;
};

struct EasyRecResult
{
  std::filesystem::path file; // .../easy_rec_ext_<V>_res.tar.gz
  std::string version;
  std::vector<std::string> libraries; // paths inside the archive
  size_t files = 0;
  std::vector<std::string> notes; // what the package leaves out, and why
};

// Makes easy_rec_ext_<V>_res.tar.gz in pai_jobs/deploy_ext.sh's layout.
EasyRecResult
package_easyrec(const project::Manifest& manifest, const EasyRecOptions& options);

// deploy_ext.sh's rule for -V: [0-9A-Za-z_-]+. Error(usage) otherwise.
void
validate_easyrec_version(const std::string& version);

} // namespace opkit::package
