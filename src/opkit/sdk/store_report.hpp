#pragma once

// `opkit sdk usage`: every part of what opkit keeps under $OPKIT_HOME (and the
// venvs and CUDA toolchains wherever their settings put them), each with its
// size on disk (util/disk_usage: allocated blocks, as `du -s` counts them),
// its path and the command that removes it. A value: the CLI prints it as
// text or opkit.sdk-usage/1.
#include "opkit/util/disk_usage.hpp"
#include "opkit/util/json.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace opkit::sdk {

struct StoreItem
{
  std::string name; // a direct entry of the part's folder: an SDK id, a venv, a wheel
  uint64_t bytes = 0;
};

struct StorePart
{
  std::string name;  // "sdks", "pch", "portable", "probes", "venvs", "toolchains", "downloads", ...
  std::string title; // "SDKs", "precompiled headers", ...
  std::filesystem::path path;
  fs::DiskUsage usage;                 // of `path`, as `du -s PATH` measures it
  std::vector<std::string> removed_by; // the commands that remove it, or what of it each removes
  std::vector<StoreItem> items;        // its folder's entries, largest first
};

struct StoreReport
{
  std::filesystem::path home;
  std::vector<StorePart> parts; // every part, present or not; "other": what no part names
  uint64_t total_bytes = 0;     // the parts' sum
};

// Measures the store now (a walk of each part; nothing locked: a part that
// changes meanwhile is measured as the walk finds it).
StoreReport
store_report();

// opkit.sdk-usage/1 (schemas/opkit.sdk-usage-1.schema.json).
Json
to_json(const StoreReport& report);

} // namespace opkit::sdk
