#pragma once

#include "opkit/package/package.hpp"
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::package {

struct EasyRecOptions
{
  std::string version;               // the resource version; default: easy_rec/version.py's __version__
  std::filesystem::path easyrec_dir; // the user's EasyRec checkout; empty: ops overlay only
  std::vector<std::string> tf_specs; // default: opkit.yaml's targets
  std::string flavor;                // "": each version's default; "pai", "stock", "deeprec"
  std::filesystem::path protoc;      // generates *_pb2.py; default: $OPKIT_PROTOC, else PATH
  bool force = false;                // pack an op that disagrees with EasyRec's libraries
  std::filesystem::path output_dir;  // default: <project>/dist
  std::filesystem::path build_root;
  bool dry_run = false; // compute everything, write nothing
};

struct EasyRecLibrary
{
  std::string path;   // inside the archive: easy_rec/python/ops/<dir>/lib<name>.so
  std::string tf;     // "1.12.0"
  std::string dir;    // "1.12_pai"
  std::string flavor; // the rule's flavor ("pai"); empty for major.minor
  std::string why;    // why that folder
};

struct EasyRecResult
{
  std::filesystem::path file; // .../easy_rec_ext_<V>_res.tar.gz, or _overlay.tar.gz without a checkout
  std::string version;
  bool overlay = false; // no --easyrec-dir: the ops (and the project's easy_rec/ files) only
  std::vector<EasyRecLibrary> libraries;
  size_t files = 0;
  std::vector<std::string> notes;    // what the package leaves out or was made from, and why
  std::vector<std::string> warnings; // findings packed anyway (--force)
  std::vector<PackedFile> members;   // every file in the tarball, in its order
  bool written = false;              // false with dry_run
};

// Makes easy_rec_ext_<V>_res.tar.gz in pai_jobs/deploy_ext.sh's layout (with
// the *_pb2.py it generates), or easy_rec_ext_<V>_overlay.tar.gz without a checkout.
EasyRecResult
package_easyrec(const project::Manifest& manifest, const EasyRecOptions& options);

// The resource version rule (configs/packages/easyrec.yaml version_pattern):
// letters, digits, '.', '_', '-', starting with a letter or digit. Error(usage) otherwise.
void
validate_easyrec_version(const std::string& version);

} // namespace opkit::package
