#pragma once

#include "opkit/package/package.hpp"
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace opkit::package {

struct TfServingOptions
{
  std::filesystem::path serving_dir; // a tensorflow/serving checkout; empty: make the bundle only
  bool patch_only = false;           // with serving_dir: write the BUILD patch, don't edit in place
  std::filesystem::path output_dir;  // default: <project>/dist/tf-serving
  bool dry_run = false;              // decide everything, write nothing
};

struct TfServingResult
{
  std::filesystem::path bundle_dir;     // <output>/<name>: BUILD + sources + manifest
  std::string label;                    // //tensorflow_serving/custom_ops/<name>:<name>_ops
  std::filesystem::path patch_file;     // when serving_dir was given
  bool build_changed = false;           // model_servers/BUILD was edited
  bool bundle_changed = false;          // custom_ops/<name> was (re)written
  std::filesystem::path serving_bundle; // where the bundle went in the checkout
  bool written = false;                 // false with dry_run
  std::vector<PackedFile> planned;      // with dry_run: the bundle's files
};

// Makes the Bazel package for tensorflow_serving/custom_ops/<name>/ and, with a
// serving checkout, adds its label to SUPPORTED_TENSORFLOW_OPS in
// tensorflow_serving/model_servers/BUILD (in place, or as a patch).
// Idempotent: a second run changes nothing. With dry_run nothing is written;
// the *_changed fields say what a real run would change.
TfServingResult
package_tf_serving(const project::Manifest& manifest, const TfServingOptions& options);

// BUILD text with `label` added to the last list of SUPPORTED_TENSORFLOW_OPS;
// nothing when it is already there. Error(usage) naming `name` when the
// assignment cannot be found.
std::optional<std::string>
add_supported_op(const std::string& build_text, const std::string& label, const std::string& name);

// A unified diff of two texts that differ in one place (as add_supported_op makes).
std::string
unified_diff(const std::string& before, const std::string& after, const std::string& path);

// The BUILD file of the bundle.
std::string
bundle_build_file(const project::Manifest& manifest, const std::vector<std::string>& sources,
                  const std::vector<std::string>& headers);

} // namespace opkit::package
