#pragma once

#include "opkit/project/build_settings.hpp"
#include "opkit/project/settings_file.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opkit::project {

// An input or output: `type` is a dtype ("float") or the name of a type attr ("T")
// or type-list attr; `number_attr` makes it `N * T`, `is_ref` `Ref(T)`.
struct OpArg
{
  std::string name;
  std::string type;
  std::string number_attr = {};
  bool is_ref = false;
  bool optional = false; // torch: `Tensor?` or a default, so a test vector may leave it out
  bool nullable = false; // torch: `Tensor?`, which takes None (a vector's null, or its leaving it out)
  bool mutated = false;  // torch: `Tensor(a!)`, which the op writes into: a vector's outputs may name it
};

// An attr: `type` is TensorFlow's attr type ("type", "int", "float", "string", "bool",
// "list(type)", ...); `allowed` lists the dtypes ("int32", "float") of a type attr, or the
// strings of a string enum (unquoted); `default_value` is canonical text (project/attr_spec:
// `100`, `"NHWC"`, `float`), `minimum` an int's least value or a list's least length.
struct OpAttr
{
  std::string name;
  std::string type;
  std::vector<std::string> allowed;
  std::optional<std::string> default_value = {};
  std::optional<int64_t> minimum = {};
  bool full_spec = false; // written in the spec grammar: its default and minimum (or none) are declared too
};

// A kernel the library must register: a device ("CPU", "GPU") and its type
// constraints: for each constrained attr, the dtypes its registrations cover
// together (TypeConstraint<float>("T") and <int32>("T") make {T: [float, int32]}).
// No constraints: one registration for any type. A GPU kernel is expected
// only from a build against a CUDA SDK.
struct KernelSpec
{
  std::string device;
  std::vector<std::pair<std::string, std::vector<std::string>>> constraints;
};

// A test vector for `opkit test --python`: the attr values and inputs (with
// the dtype to feed each as) to run the op on, and either the outputs it must
// give or the error it must raise.
struct TestVector
{
  struct Value
  {
    std::string name;
    std::string type;  // inputs: the dtype to feed; attrs: the attr's type ("int", "string", "type", ...)
    std::string json;  // the (nested) value, as JSON
    std::string file;  // instead of json: a file of the project, passed as its absolute path
    std::string where; // opkit.yaml:line:col of the value, for messages
  };
  std::string name; // optional, shown in reports
  std::vector<Value> attrs;
  std::vector<Value> inputs;
  std::vector<Value> outputs;
  bool expects_error = false;
  std::string error; // with expects_error: text the error's message must contain
  double tolerance = 1e-6;
};

struct OpSpec
{
  std::string name; // TensorFlow: CamelCase, optionally namespaced (Vendor>OpName); torch: ns::op[.overload]
  // torch: the canonical schema (project/torch_schema). Its tensor arguments
  // are `inputs` (type "Tensor" or "Tensor[]"), its other arguments `attrs`
  // (type as the schema writes it: "int", "float[]"), its results `outputs`;
  // `kernels` name dispatch keys (CPU, CUDA, Autograd, ...).
  std::string schema = {};
  std::vector<OpArg> inputs;
  std::vector<OpArg> outputs;
  std::vector<OpAttr> attrs;
  std::vector<KernelSpec> kernels;
  std::vector<TestVector> tests;
};

// How compiles may be shared (opkit.yaml's `build:`; OPKIT_CACHE, OPKIT_CACHE_REMOTE
// and OPKIT_DISTCC_HOSTS override it per machine, --cache/--no-cache per run).
struct CompileSharing
{
  std::string cache = "auto";            // ccache: auto (when installed), on, off
  std::string cache_remote;              // ccache remote_storage: redis://host:port, http://host/path
  std::vector<std::string> distcc_hosts; // distcc helpers: "host/slots"
  std::vector<SettingEntry> entries;     // those opkit.yaml sets (settings: or build:), with where
};

// A library of the project: its sources, the file it links to, its ops.
struct LibrarySpec
{
  std::string name;      // snake_case; `--lib NAME` selects it
  std::string output;    // the file name, e.g. _zero_out_ops.so (default lib<name>.so)
  VersionRange versions; // the framework's versions it is built for (`tensorflow:`, `torch:`; default: all)
  std::string device;    // `device: gpu`: its kernels are GPU kernels only, built for CUDA SDKs alone ("" = any)
  std::vector<SettingsBlock> settings; // its own settings: sources, flags, and `when` blocks
  std::vector<OpSpec> ops;
  // A Python extension module, by the name its package imports it
  // ("extension_cpp._C"); "" for a library loaded as a file (load_op_library,
  // torch.ops.load_library). A module is built once per CPython, its file
  // named as that Python's import finds it: module_file(".cpython-310-x86_64-linux-gnu.so").
  std::string python_module = {};
  // A module's own functions (pybind11's m.def), each declared by a torch
  // schema whose namespace is the module's last name ("_C::fuse(Tensor x) ->
  // Tensor"), with test vectors `opkit test --python` calls them on.
  std::vector<OpSpec> functions = {};

  // The name Python imports a module by, python_module's last part ("_C"); "" for a plain library.
  std::string module_name() const;
  // The file of a module for one CPython's extension suffix; `output` for a plain library.
  std::string module_file(const std::string& ext_suffix) const;

  // Whether a build for this framework version (a CUDA build or not) makes it.
  bool builds_for(const Version& version, bool cuda_build) const;
  // Why not, as a build's `skipped` says it: "tensorflow >=2.4", "GPU kernels only".
  std::string skip_reason(const std::string& framework, const Version& version, bool cuda_build) const;
};

// opkit.yaml, validated. The single-op form (`op:` and `sources:` at the top)
// is one library named after the project, with output lib<name>.so.
struct Manifest
{
  std::filesystem::path root;    // the folder holding opkit.yaml
  std::string name;              // the project's name, snake_case
  std::string template_name;     // the template it came from
  std::string version = "0.1.0"; // the op's own version, for packages
  // The tree's own Python package (a folder beside opkit.yaml with an
  // __init__.py, as setup.py's extensions name it: segkit for segkit._segment):
  // `package wheel` packs it with each library where it imports it. "" for none.
  std::string package;
  std::vector<LibrarySpec> libraries;       // at least one for a compiled project
  std::vector<SettingsBlock> settings;      // build: settings every library gets
  std::string framework = "tensorflow";     // what it builds for: targets.tensorflow or targets.torch
  std::vector<std::string> target_versions; // default targets for build and test
  std::string runtime;                      // where the op will run, for the build's check ("" = TF's default)
  std::string cpu; // targets.cpu: a CPU baseline builds compile for (-march) and check against; "none"; "" = default
  CompileSharing sharing;                     // build.cache, build.cache_remote, build.distcc_hosts
  std::vector<SettingEntry> project_settings; // `settings:` (and build.cache...), for settings/

  // The first library and its first op: what single-op tools (templates' test
  // scripts, `test --python`) work on.
  const LibrarySpec& primary_library() const;
  const OpSpec& primary_op() const;
  // The libraries `--lib` names (all of them when `names` is empty); an unknown
  // name is Error(usage) listing the known ones.
  std::vector<const LibrarySpec*> select_libraries(const std::vector<std::string>& names) const;
};

// Parses opkit.yaml text. Every problem is Error(usage) "name:line:col: cause".
Manifest
parse_manifest(const std::string& text, const std::string& name, const std::filesystem::path& root);

// The project folder holding `start` (made absolute): the nearest of `start`
// and its parents with an opkit.yaml, as cargo finds Cargo.toml; nullopt when
// none has one.
std::optional<std::filesystem::path>
find_project_root(const std::filesystem::path& start);

// A project's build folder: `given` (--build-dir) when set, else
// <project_root>/build; absolute and normalized ("../out" from a subfolder).
std::filesystem::path
build_root(const std::filesystem::path& project_root, const std::filesystem::path& given);

// Reads the opkit.yaml of the project holding `dir` (find_project_root), so
// `opkit build` works from any folder inside the project; `root` is that
// project's folder. None found is Error(usage) naming `dir` and `opkit new`.
Manifest
load_manifest(const std::filesystem::path& dir);

// The dtype names opkit knows (TensorFlow's DataTypeString spellings), from
// configs/frameworks/tensorflow.yaml.
const std::vector<std::string>&
known_dtypes();

// A dtype as TensorFlow's op registry reads it: "float32" is "float", "half"
// stays "half"; "" for a spelling it refuses.
std::string
canonical_dtype(const std::string& spelling);

} // namespace opkit::project
