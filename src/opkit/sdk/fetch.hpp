#pragma once

#include "opkit/sdk/sdk.hpp"
#include "opkit/settings/settings.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace opkit::sdk {

struct FetchOptions
{
  std::string requirement; // "tensorflow==2.10.1"
  // cpu, gpu (the CUDA build), or "": the CPU build where one is published
  // (TensorFlow), else the CUDA one (torch: PyPI has only that).
  std::string variant;
  std::string index_url; // empty: the index_url setting (index_url_setting), else pip download
};

struct FetchResult
{
  Sdk sdk;
  bool already_present = false; // the store had it: nothing downloaded
  bool offline = false;         // a prefix the network could not ask the index about: the store's newest
  std::string wheel;            // the file chosen
  std::string source;           // the index URL, or "pip download"
  bool ranged = false;          // only the members the SDK keeps were fetched, with range requests
  bool ranges_ignored = false;  // the server did not answer the range request with a usable range: downloaded whole
  uint64_t wheel_bytes = 0;     // the wheel's size ...
  uint64_t wire_bytes = 0;      // ... what came over the wire (0 from pip download) ...
  uint64_t sdk_bytes = 0;       // ... and what the store keeps of it
  uint64_t resumed_from = 0;    // bytes a previous, interrupted whole download had already fetched
  int requests = 0;             // HTTP requests for the wheel's bytes
  int whole_requests = 0;       // those of the whole download (more than one: resumed after a cut)
};

// Finds the wheel a TF version was published with on a PEP 503/691 index and
// fetches only the members the SDK keeps, with range requests (each checked
// against the wheel's RECORD on import: the index's whole-file sha256 needs
// the whole file). A server that does not serve ranges, or an interrupted
// earlier whole download, gets the whole download instead (resumed, verified
// against the index's sha256). Imports the SDK subset; deletes a ranged
// download, and keeps a whole wheel in downloads/ for the release's venv. Concurrent fetches of one SDK wait on a lock,
// and the later ones find it already imported.
FetchResult
fetch_sdk(const FetchOptions& options);

// The index to use: the flag, else $OPKIT_INDEX_URL, else $PIP_INDEX_URL, else
// opkit.yaml's or the config file's index_url, else the index-url pip's own
// configuration gives `pip download` (sdk/pip_config), else pip's default
// index; empty when pip's configuration turns on no-index.
std::string
configured_index_url(const std::string& flag);

// The same as the setting, with its origin (`opkit config` shows it).
settings::Value
index_url_setting(const std::string& flag = "");

// The whole wheel of `distribution` `version` for CPython `python` ("3.11")
// that a fetch downloaded whole (pip download, a server without ranges) and
// kept in $OPKIT_HOME/downloads: the release's venv installs it from there
// (probe/framework_venv) instead of downloading it a second time. Nothing
// when there is none (a range fetch keeps no wheel).
std::optional<std::filesystem::path>
downloaded_wheel(const std::string& distribution, const std::string& version, const std::string& python);

} // namespace opkit::sdk
