#pragma once

#include "opkit/sdk/sdk.hpp"
#include "opkit/util/fs.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace opkit::sdk {

// $OPKIT_HOME, or ~/.cache/opkit.
std::filesystem::path
opkit_home();

// The folder holding every imported SDK: <home>/sdks.
std::filesystem::path
sdk_store_dir();

// Every SDK in the store, sorted by version.
std::vector<Sdk>
list_sdks();

// The SDK for a version spec of `framework`: an exact version ("2.10.1") or a
// prefix ("2.10") meaning the newest matching one, or an SDK id of that
// framework. Missing: Error(missing) whose hint is the `opkit sdk fetch`
// command that gets it (fetch_command).
Sdk
resolve_sdk(const std::string& spec, const std::string& framework = "tensorflow");

// The command that fetches what a version spec or SDK id names:
// "opkit sdk fetch tensorflow==1.12.0", "... tensorflow==2.10.1 --variant gpu"
// for "tensorflow-2.10.1-cuda", "opkit sdk fetch torch==2.8.0" for
// "torch-2.8.0-cuda" (PyPI's torch is the CUDA build); a plain version is of
// `framework`. Empty when it names no version.
std::string
fetch_command(const std::string& id_or_spec, const std::string& framework = "tensorflow");

// An SDK by id ("tensorflow-2.10.1") or version spec ("2.10"); Error(missing) when none.
Sdk
find_sdk(const std::string& id_or_spec);

// Removes an SDK, its cached probe and its precompiled headers. The folder is
// renamed aside under the store lock first, so a reader never sees half of
// it. An SDK in use by a running build or test (see use_sdk) is not removed:
// Error(failed).
void
remove_sdk(const Sdk& sdk);

// Where precompiled headers are kept: <OPKIT_HOME>/pch/<sdk id>/<key>/.
std::filesystem::path
pch_store_dir();

// After an SDK id was imported again: its precompiled headers are keyed by
// the old sdk.json and can never be used again, so they go (0.1-0.34 GB each),
// unless a running build or test uses the SDK (then they stay, for gc).
void
drop_stale_pchs(const std::string& id);

// Marks `sdk` in use for the holder's lifetime (a shared lock per SDK id), so
// that `opkit sdk remove` refuses it instead of pulling the headers from under
// a running build. Error(missing) when it was removed before the lock was had.
std::shared_ptr<const fs::FileLock>
use_sdk(const Sdk& sdk);

struct GcReport
{
  std::vector<std::string> removed; // paths
  uint64_t bytes = 0;               // allocated, as `du -s` counts (util/disk_usage)

  // Removes `path` (a link as a link), adding it and what it took.
  void drop(const std::filesystem::path& path);
};

// Removes what interrupted operations left: staging and set-aside folders,
// pip's download folders, probes of removed SDKs, and (with `downloads`) the
// partial downloads kept for resuming and the whole wheels kept for a
// release's venv (sdk/fetch: downloaded_wheel).
GcReport
collect_garbage(bool downloads);

// The lock every commit into the store takes.
std::filesystem::path
store_lock_path();

} // namespace opkit::sdk
