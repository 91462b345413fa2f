#pragma once

#include "opkit/project/version.hpp"

#include <string>
#include <vector>

namespace opkit::project {

struct Quirk
{
  std::string id;
  std::string description;
  std::string workaround;
};

// The build facts for one TensorFlow version, from configs/frameworks/tensorflow.yaml.
struct FrameworkFlags
{
  std::string since;                 // the range this came from
  bool verified = false;             // checked against a real wheel
  int cxx_standard = 0;              // 11, 14, 17
  int cxx11_abi = 0;                 // _GLIBCXX_USE_CXX11_ABI
  int eigen_max_align_bytes = 0;
  std::string framework_library;     // file name in the wheel, also its SONAME
  std::string link;                  // -ltensorflow_framework or -l:libtensorflow_framework.so.N
  std::string runtime;               // the configs/runtimes/ policy the stock wheel assumes
  std::vector<std::string> compile_flags;
  std::vector<std::string> warning_flags;
  std::vector<std::string> link_flags;
  std::vector<std::string> include_dirs; // relative to the SDK root
  std::vector<std::string> cuda_defines;    // for every source of a CUDA project
  std::vector<std::string> nvcc_flags;      // for the device sources
  std::vector<std::string> cuda_link_flags; // after the SDK's link flags
  std::vector<Quirk> quirks;
};

// The whole table, parsed once.
class FrameworkTable
{
public:
  // Parses a tensorflow.yaml text; `name` is used in file:line:col errors.
  static FrameworkTable parse(const std::string& text, const std::string& name);
  // The table embedded in the binary.
  static const FrameworkTable& tensorflow();

  // The flags for a version; throws Error(usage) for one older than the first range.
  FrameworkFlags flags_for(const Version& version) const;

private:
  std::vector<std::pair<Version, FrameworkFlags>> m_ranges; // sorted by `since`
};

} // namespace opkit::project
