#pragma once

// --tf and --torch: one option per framework table (configs/frameworks/),
// named by its short name, each taking the versions of that framework. A
// project builds for one framework (its template's); the other's option is a
// usage error naming the right one.
#include <CLI/CLI.hpp>

#include "opkit/project/version.hpp"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opkit::cli {

// One clause of a version range as --tf and --torch take it (">=2.16",
// "<2.20", "!=2.18.0"), compared as PEP 440 does (2.16 is 2.16.0).
struct VersionClause
{
  std::string op; // >=, <=, >, <, !=
  project::Version version;
  std::string text; // as given
  bool admits(const project::Version& version) const;
};

// The clause a spec is, when it starts with a comparison; nothing for a
// plain version or SDK id; Error(usage) for a comparison without a version.
std::optional<VersionClause>
parse_version_clause(const std::string& spec, const std::string& flag);

struct FrameworkVersions
{
  std::map<std::string, std::vector<std::string>> given; // by framework ("tensorflow", "torch"), as typed

  // The specs given for `framework` ("1.12,2.10.1" split); empty when none.
  // A range (its clauses: ">=2.16,<2.20") stands for every SDK of the store
  // in it, as their ids, oldest first (Error(missing) when none is); plain
  // versions and ids stay as given. Versions given for another framework are
  // Error(usage).
  std::vector<std::string> for_framework(const std::string& framework) const;
  // The framework whose option was given ("" when none; Error(usage) for two).
  std::string chosen() const;
};

// Adds --tf (with `tf_help`) and, for every other framework, --<short name>
// ("PyTorch versions or SDK ids to <verb>, e.g. 2.5,2.8 (...; default: <when_none>)").
void
add_framework_versions(CLI::App* cmd, FrameworkVersions& versions, const std::string& tf_help, const std::string& verb,
                       const std::string& when_none = "opkit.yaml's targets");

// One version of one framework (`opkit check`'s target): --tf V or --torch V,
// at most one of them.
struct FrameworkVersion
{
  std::map<std::string, std::string> given; // by framework, as typed

  // The framework given and its version spec; ("", "") when none.
  std::pair<std::string, std::string> chosen() const;
};

// Adds --tf (with `tf_help`) and --<short name> for every other framework
// ("The target's PyTorch version (e.g. 2.5, 2.8) or SDK id, <what>"), each
// excluding the others.
void
add_framework_version(CLI::App* cmd, FrameworkVersion& version, const std::string& tf_help, const std::string& what);

} // namespace opkit::cli
