#pragma once

#include "opkit/project/manifest.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::probe {

// One test vector of one op, run in a real framework (TensorFlow, torch).
struct VectorOutcome
{
  std::string library;        // its name in opkit.yaml
  std::filesystem::path path; // the library file opkit build made
  std::string op;             // the op's name (TensorFlow: ZeroOut; torch: ns::op)
  std::string python_name;    // the function that runs it (TensorFlow's generated one; torch.ops.ns.op)
  int vector = 0;             // its index among the op's tests:
  std::string name;           // its name in opkit.yaml, if it has one
  bool ok = false;
  std::string expected; // JSON: {"outputs": {name: value}} or {"error": text to contain}
  std::string actual;   // JSON: {"outputs": ...} or {"error": "Type: message"}
};

// The vectors of every tested op, in one framework version.
struct PythonVectorsReport
{
  std::string sdk_id;           // the SDK the libraries were built against
  std::string framework;        // "tensorflow", "torch"
  std::string version;          // the venv's framework (the SDK's version)
  std::filesystem::path python; // the venv's interpreter
  std::vector<VectorOutcome> outcomes;
  std::vector<std::string> problems; // ops whose vectors did not run, each with why
  bool ok() const;
};

// `opkit test --python`: runs the test vectors of the selected libraries'
// ops (every library when `libraries` is empty) in the real framework of
// each version spec (opkit.yaml's targets when none): the library `opkit
// build` made for that SDK (it must be built and pass its check), loaded by a
// venv with exactly that release (probe/framework_venv) running the table's
// vectors runner (templates/probe/), from the project root (so files the op
// reads may be named relative to it). One report per version. No vectors is
// Error(usage); a venv whose framework is not the SDK's version is
// Error(missing) before anything runs.
std::vector<PythonVectorsReport>
test_in_framework_versions(const project::Manifest& manifest, const std::vector<std::string>& specs,
                           const std::filesystem::path& build_root, const std::vector<std::string>& libraries);

// An op's vectors as the runner (the table's probe.vectors) reads them: per
// vector its attrs, inputs (torch: each with its kind, tensor or tensors, and
// "none": true for a null), outputs (torch: "argument": true for an argument
// the op writes into, checked after the call) and error, and for torch
// "pass_none": the optional arguments without a default it leaves out, passed as
// None. A file value becomes its absolute path (one outside `root` is Error(usage)).
Json
vectors_json(const project::OpSpec& op, const std::filesystem::path& root);

// The reports as data: schema opkit.test-python/1, one record per (version, vector).
Json
to_json(const std::vector<PythonVectorsReport>& reports);

} // namespace opkit::probe
