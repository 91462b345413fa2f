#pragma once

#include "opkit/project/version.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::project {

// configs/packages/easyrec.yaml: where EasyRec looks for op libraries, and
// what its resource needs besides them.
struct EasyRecRules
{
  struct OpsDir
  {
    std::string tf;          // "1.12": matches 1.12.*
    std::string flavor;      // "pai", "stock", "deeprec"
    std::string dir;         // "1.12_pai"
    std::string why;         // printed beside the library
    bool is_default = false; // the version's folder when no --flavor is given
  };
  struct ProtobufRow
  {
    Version since; // from this TF version on
    Version min;   // the protobuf its wheel requires at least
  };
  std::vector<OpsDir> ops_dirs;
  std::string other_why; // why a version without a rule gets major.minor
  std::vector<std::string> reserved_libraries;
  std::vector<std::string> third_party;
  std::string version_pattern; // an ECMAScript regex the whole resource version must match
  std::vector<ProtobufRow> protobuf;
  Version protoc_min;
  std::string protoc_install; // the step that gets a suitable protoc
  struct Release
  {
    Version since;           // from this EasyRec release on
    bool components = false; // backbone keras_layer blocks exist
    bool raw_input = false;  // the raw_input block and PassThroughFeature exist
    std::string route;       // how raw strings reach a component, in words
  };
  std::vector<Release> releases; // ascending by `since`
};

// The embedded rules.
const EasyRecRules&
easyrec_rules();

// The folder one library goes to, and why.
struct OpsDirChoice
{
  std::string dir;    // easy_rec/python/ops/<dir>
  std::string flavor; // the rule's flavor; "" for major.minor
  std::string why;
};

// easy_rec/python/ops/<dir> for a TF version and flavor. An empty flavor takes
// the version's default rule, else major.minor. A flavor that has no rule for
// this version gives nothing ("stock" on a version without rules: major.minor).
// An unknown flavor is Error(usage).
std::optional<OpsDirChoice>
easyrec_ops_dir(const EasyRecRules& rules, const Version& tf, const std::string& flavor);

// The protobuf the TF version's wheel requires at least (the last row whose
// `since` is <= tf; the first row for older versions).
Version
easyrec_protobuf_min(const EasyRecRules& rules, const Version& tf);

// What an EasyRec release offers a component backed by a custom op: the last
// row whose `since` is <= release. A release without backbone components is
// Error(usage) saying which release brought them.
const EasyRecRules::Release&
easyrec_release(const EasyRecRules& rules, const Version& release);

// The release an EasyRec checkout (or an unpacked pai-easy-rec) declares: the
// `__version__ = '...'` of DIR/easy_rec/version.py, as written (not judged).
// No such file or assignment is Error(usage) naming the file; `what_else`
// says what the user can pass instead ("pass --version").
std::string
easyrec_checkout_version(const std::filesystem::path& dir, const std::string& what_else);

} // namespace opkit::project
