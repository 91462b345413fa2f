#pragma once

#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <string>

namespace opkit::builder {

// The PopART SDK to build against: --popart-sdk, else $POPART_SDK. Graphcore's
// SDK is neither on PyPI nor in Debian, so opkit cannot fetch it: absent, this
// is Error(missing) saying so; a folder without include/popart is Error(usage).
std::filesystem::path
find_popart_sdk(const std::filesystem::path& given);

struct PopartBuildResult
{
  bool ok = false;
  std::string log;
};

// Runs the project's Makefile against the SDK (make POPART_SDK=...).
PopartBuildResult
build_popart(const project::Manifest& manifest, const std::filesystem::path& sdk, int jobs);

} // namespace opkit::builder
