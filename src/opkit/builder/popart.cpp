#include "opkit/builder/popart.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/process.hpp"

#include <cstdlib>

namespace opkit::builder {

namespace stdfs = std::filesystem;

stdfs::path
find_popart_sdk(const stdfs::path& given)
{
  stdfs::path sdk = given;
  if (sdk.empty()) {
    sdk = settings::get("popart_sdk");
  }
  if (sdk.empty()) {
    throw Error(ExitCode::missing, "PopART SDK not found: pass --popart-sdk DIR or set POPART_SDK",
                "Graphcore's Poplar SDK is not on PyPI or in Debian, so opkit cannot fetch it; install it from "
                "Graphcore and point opkit at it");
  }
  std::error_code ec;
  if (!stdfs::is_directory(sdk / "include" / "popart", ec)) {
    fail(ExitCode::usage, "{}: not a PopART SDK (no include/popart)", sdk);
  }
  // make runs in the project folder: a relative path must not change meaning there.
  return stdfs::absolute(sdk);
}

PopartBuildResult
build_popart(const project::Manifest& manifest, const stdfs::path& sdk, int jobs)
{
  ProcessResult make =
    run_process({"make", "-C", manifest.root.string(), "-j", std::to_string(jobs), "POPART_SDK=" + sdk.string()});
  return {make.exit_code == 0, make.out + make.err};
}

} // namespace opkit::builder
