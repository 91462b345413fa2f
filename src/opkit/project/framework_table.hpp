#pragma once

#include "opkit/project/node.hpp"
#include "opkit/project/version.hpp"

#include <map>
#include <optional>

#include <string>
#include <vector>

namespace opkit::project {

struct Quirk
{
  std::string id;
  std::string description;
  std::string workaround;
};

// How a venv with a TF version of a range is made: the Python it needs, a pip
// to upgrade to first, pins installed beside tensorflow==V, and pip's flags.
struct PythonEnvRecipe
{
  std::string python;             // "3.6"
  std::string pip;                // "pip==21.3.1", or empty
  std::vector<std::string> pins;  // "numpy<1.17"
  std::vector<std::string> flags; // "--prefer-binary"
};

// What an SDK import keeps of a framework's wheel and where it reads the
// facts, from the table's `sdk:` section (torch.yaml; tensorflow.yaml has none:
// its layout is sdk/importer's and sdk/facts').
struct SdkLayout
{
  std::vector<std::string> package_dirs; // the wheel's package folders ("torch")
  std::string include_dir;               // below a package folder ("include"), kept as include/
  std::string library_dir;               // below a package folder ("lib")
  std::vector<std::string> libraries;    // file names in library_dir that are kept, as lib/<name>
  std::string version_file;              // below a package folder ("version.py")
  // Files below a package folder that say build facts (utils/cpp_extension.py),
  // kept as facts/<file name> for sdk/torch_facts to read.
  std::vector<std::string> fact_files;
  std::vector<std::string> abi_libraries;  // the libraries whose exports show the C++11 ABI
  std::vector<std::string> abi_namespaces; // the mangled prefixes counted ("_ZN3c10")
};

// The build facts for one version of a framework, from configs/frameworks/<name>.yaml.
struct FrameworkFlags
{
  std::string since;               // the range this came from
  bool verified = false;           // checked against a real wheel
  bool namespaced_op_names = true; // registers Vendor>OpName (older TF aborts the process on '>')
  // TF's Python loads the framework with RTLD_GLOBAL, so an op reaches it even
  // without a DT_NEEDED on it (false, the default: only through its DT_NEEDED).
  bool framework_global = false;
  std::optional<PythonEnvRecipe> python_env; // how this range's TF installs into a venv (where verified)
  int cxx_standard = 0;                      // 11, 14, 17, 20: where the wheel does not say it
  std::optional<int> cxx_standard_override;  // wins over what the wheel says (a release whose files are wrong)
  int cxx11_abi = 0;                         // _GLIBCXX_USE_CXX11_ABI
  int eigen_max_align_bytes = 0;
  std::string framework_library; // file name in the wheel, also its SONAME
  std::string link;              // -ltensorflow_framework or -l:libtensorflow_framework.so.N
  std::string gomp_soname;       // the libgomp the framework's libraries need, where the table says
  // The CPU features the release's wheels are documented to need (TF since
  // 1.6: AVX), joined with what the framework library runs at load to make a
  // runtime policy's default CPU (cpu/verdict).
  std::vector<std::string> cpu_floor;
  // System libraries every process of the framework has mapped before an op
  // loads (TF: libz.so.1, through Python's zlib module): the loader takes the
  // loaded one by soname and never searches, so a sibling of that name is
  // never read. A policy lists them with their versions; on this machine
  // (--runtime host) they are this machine's.
  std::vector<std::string> system_process_libraries;
  std::string runtime;                    // the configs/runtimes/ policy the stock wheel assumes
  std::string cpu_distribution;           // the PyPI project of the CPU SDK ("tensorflow-cpu")
  std::string gpu_distribution;           // ... and of the CUDA one ("tensorflow")
  std::vector<std::string> wheel_pythons; // python tags, best first ("cp310"); the platform is the wheel's
  std::vector<std::string> compile_flags;
  std::vector<std::string> warning_flags;
  std::vector<std::string> link_flags;
  std::vector<std::string> link_libraries;        // -l names beside `link` (torch: c10, torch_cpu, torch)
  std::vector<std::string> include_dirs;          // relative to the SDK root
  std::vector<std::string> cuda_defines;          // for every source of a CUDA project
  std::vector<std::string> nvcc_flags;            // for the device sources
  std::vector<std::string> cuda_link_flags;       // after the SDK's link flags
  std::vector<std::string> cuda_static_libraries; // the toolkit's archives they link (file names)
  // Bazel include prefix ("gpu/cub") -> the toolkit folders it may stand for, first existing wins.
  std::vector<std::pair<std::string, std::vector<std::string>>> cuda_include_map;
  std::vector<std::string> pch_headers; // what the precompiled header includes
  std::vector<std::string> pch_defines; // macros it defines first (EIGEN_USE_THREADS)
  // A source may take the precompiled header when it includes a header under
  // one of these ("tensorflow/", "torch/").
  std::vector<std::string> pch_include_prefixes;
  // What a library that is a Python extension module gets besides (torch's
  // `extension_module:`): compile flags, and -l names after the framework's.
  std::vector<std::string> module_compile_flags;
  std::vector<std::string> module_libraries;
  // Defines each library gets, `{library}` replaced by its name
  // (torch: TORCH_EXTENSION_NAME={library}, as cpp_extension passes).
  std::vector<std::string> library_defines;
  // What the framework's Python has loaded (RTLD_LOCAL) before an op loads:
  // an op naming one in its DT_NEEDED finds the loaded copy. Each is read from
  // the SDK's symbols/<name>.idx, or lib/<name> where the SDK keeps the file.
  std::vector<std::string> process_libraries;
  std::vector<Quirk> quirks;
};

// What a command's --tf / --torch option says of a framework: its flag, its
// name in words, and the first and last versions of its table.
struct FrameworkOptionFacts
{
  std::string short_name;
  std::string display_name;
  std::vector<std::string> example_versions;
};

// The whole table, parsed once.
class FrameworkTable
{
public:
  // Parses a tensorflow.yaml text; `name` is used in file:line:col errors.
  static FrameworkTable parse(const std::string& text, const std::string& name);
  // The table embedded in the binary.
  static const FrameworkTable& tensorflow();
  // configs/frameworks/<name>.yaml, embedded in the binary, parsed once;
  // Error(usage) for a name opkit has no table for.
  static const FrameworkTable& get(const std::string& name);
  // The frameworks opkit has a table for, by name ("tensorflow", "torch").
  static std::vector<std::string> names();
  // option_facts of a framework, read from its table's MessagePack twin without
  // parsing the whole table (every command builds an option per framework,
  // and a command line uses one of them); the parsed table's without a twin.
  static FrameworkOptionFacts option_facts(const std::string& name);

  // The `framework:` the table names ("tensorflow", "torch").
  const std::string& framework() const { return m_framework; }
  // Its short name ("tf", "torch"): build folders (tf-2.10.1) and the CLI flag (--tf).
  const std::string& short_name() const { return m_short_name; }
  // The mangled namespaces of its own symbols ("10tensorflow", "3c10"): an
  // unresolved one of those is the framework's, missing from this version.
  const std::vector<std::string>& symbol_namespaces() const { return m_symbol_namespaces; }
  // How findings name it before a version ("TF 2.10.1", "torch 2.5.1").
  const std::string& label() const { return m_label; }
  // How people write its name ("TensorFlow", "PyTorch"), for messages.
  const std::string& display_name() const { return m_display_name; }
  // The library of the framework's Python module that holds what an op cannot
  // link ("_pywrap_tensorflow_internal.so", "libtorch_python.so"), for findings.
  const std::string& python_module_library() const { return m_python_module_library; }
  // `opkit package wheel`'s package __init__.py (templates/wheel/<file>).
  const std::string& wheel_init() const { return m_wheel_init; }
  // The template `opkit init` names for a tree of this framework's ops ("tensorflow-op", "torch-op").
  const std::string& init_template() const { return m_init_template; }
  // The versions `opkit new` writes into targets when none are given ("1.12", "2.10.1").
  const std::vector<std::string>& default_targets() const { return m_default_targets; }
  // The headers whose #include makes a source a Python module's (extension_module.headers;
  // a prefix when it ends in '/'): `opkit init` gives its library python_module.
  const std::vector<std::string>& module_headers() const { return m_module_headers; }
  // The `sdk:` section; empty fields where the table has none.
  const SdkLayout& sdk_layout() const { return m_sdk_layout; }

  // The flags for a version; throws Error(usage) for one older than the first range.
  FrameworkFlags flags_for(const Version& version) const;

  // The load probe's reporter (templates/probe/<file>), compiled per SDK.
  const std::string& probe_reporter() const { return m_probe_reporter; }
  // The module the framework's Python imports it by (`probe.module`: tensorflow,
  // torch): the load probe imports it first where a library needs that process.
  const std::string& python_module() const { return m_python_module; }
  // What the framework library needs to load that the SDK does not keep: each
  // library's file name and the distribution that ships it, pinned by the
  // framework wheel's METADATA (torch: libcudart.so.12 from nvidia-cuda-runtime-cu12).
  const std::vector<std::pair<std::string, std::string>>& probe_runtime() const { return m_probe_runtime; }
  // `opkit test --python`'s runner (templates/probe/<file>): runs one op's test vectors in a venv.
  const std::string& vectors_runner() const { return m_vectors_runner; }
  // What an op's `kernels:` may name: TF's devices (CPU, GPU), torch's dispatch keys (CPU, Autograd, ...).
  const std::vector<std::string>& kernel_keys() const { return m_kernel_keys; }
  // The key whose kernels only a CUDA build has ("GPU", "CUDA").
  const std::string& gpu_kernel_key() const { return m_gpu_kernel_key; }

  // The oldest and newest ranges' `since` ("2.5", "2.8"): examples for help texts.
  std::vector<std::string> example_versions() const;

  // The first version from which every range registers namespaced op names ("2.0").
  std::string namespaced_op_names_since() const;

  // The versions whose framework library is `soname`, as a requirement
  // (">=1.12,<1.15", ">=2.0"); empty when no range has it.
  std::string versions_with_framework_library(const std::string& soname) const;
  // Every range's framework library, each once, oldest first.
  std::vector<std::string> framework_libraries() const;
  // Every range's PyPI distributions (CPU and CUDA builds), each once, oldest first.
  std::vector<std::string> distributions() const;

  // The dtypes the op registry reads, by the name it prints ("float"), in the table's order.
  const std::vector<std::string>& dtypes() const { return m_dtypes; }
  // A spelling as the registry reads it ("float32" -> "float"); "" when it reads none.
  std::string canonical_dtype(const std::string& spelling) const;

private:
  // By value, as yaml::load returns it: a missing key then reads as an empty node.
  static FrameworkTable from_node(Node root, const std::string& name);

  std::string m_framework = "tensorflow";
  std::string m_short_name = "tf";
  std::string m_display_name = "TensorFlow";
  std::string m_label = "TF";
  std::vector<std::string> m_symbol_namespaces;
  std::string m_probe_reporter;
  std::string m_python_module;
  std::vector<std::pair<std::string, std::string>> m_probe_runtime; // (library file, distribution)
  std::string m_vectors_runner;
  std::vector<std::string> m_kernel_keys;
  std::string m_gpu_kernel_key;
  std::vector<std::string> m_default_targets;
  std::string m_init_template;
  std::string m_wheel_init;
  std::string m_python_module_library;
  std::vector<std::string> m_module_headers;
  SdkLayout m_sdk_layout;
  std::vector<std::pair<Version, FrameworkFlags>> m_ranges; // sorted by `since`
  std::vector<std::string> m_dtypes;
  std::map<std::string, std::string> m_dtype_spellings; // every spelling, the name included -> the name
};

} // namespace opkit::project
