#include "opkit/check/target.hpp"

#include "opkit/check/indexed_library.hpp"
#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <algorithm>

namespace opkit::check {

namespace {

Profile
system_profile(const std::string& runtime, const std::filesystem::path& profile_file)
{
  if (!profile_file.empty()) {
    return load_profile_file(profile_file);
  }
  if (runtime.empty() || runtime == "host") {
    return host_profile();
  }
  return profile_from_policy(project::load_runtime_policy(runtime));
}

} // namespace

CheckTarget
make_check_target(const sdk::Sdk& sdk, const std::string& runtime, const std::filesystem::path& profile_file)
{
  project::FrameworkFlags flags = project::FrameworkTable::tensorflow().flags_for(sdk.version);
  CheckTarget target;
  target.profile = system_profile(runtime.empty() && profile_file.empty() ? flags.runtime : runtime, profile_file);
  target.framework_version = sdk.version.str();
  target.cxx11_abi = sdk.cxx11_abi;
  target.cxx_standard = sdk.cxx_standard;
  target.cuda_version = sdk.cuda.is_cuda_build ? sdk.cuda.cuda_version : "";
  for (const std::string& soname : project::FrameworkTable::tensorflow().framework_libraries()) {
    target.framework_libraries[soname] = project::FrameworkTable::tensorflow().versions_with_framework_library(soname);
  }
  bool has_framework = std::any_of(target.profile.libraries.begin(), target.profile.libraries.end(),
                                   [](const ProfileLibrary& l) { return l.framework; });
  if (!has_framework) {
    ProfileLibrary framework =
      indexed_library(sdk.lib_dir() / sdk.framework_library, {sdk.symbol_index(), sdk::store_lock_path()});
    target.profile.libraries.insert(target.profile.libraries.begin(), std::move(framework));
  }
  target.other_frameworks = [id = sdk.id, cuda = sdk.cuda.is_cuda_build] {
    std::vector<OtherFramework> others;
    for (const sdk::Sdk& other : sdk::list_sdks()) {
      if (other.id == id || other.cuda.is_cuda_build != cuda) {
        continue;
      }
      try {
        others.push_back({other.version.str(), indexed_library(other.lib_dir() / other.framework_library,
                                                               {other.symbol_index(), sdk::store_lock_path()})});
      } catch (const Error&) {
        continue; // a damaged SDK names no version
      }
    }
    return others;
  };
  // TF's Python loads the framework without RTLD_GLOBAL (configs/frameworks/tensorflow.yaml).
  for (ProfileLibrary& library : target.profile.libraries) {
    library.local_scope = library.framework && !flags.framework_global;
  }
  return target;
}

CheckTarget
make_check_target(const TargetOptions& options)
{
  if (!options.tf_spec.empty()) {
    return make_check_target(sdk::resolve_sdk(options.tf_spec), options.runtime, options.profile_file);
  }
  CheckTarget target;
  target.profile = system_profile(options.runtime, options.profile_file);
  return target;
}

} // namespace opkit::check
