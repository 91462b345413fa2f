#pragma once

#include "opkit/sdk/sdk.hpp"

#include <cstdint>
#include <string>

namespace opkit::sdk {

struct FetchOptions
{
  std::string requirement;     // "tensorflow==2.10.1"
  std::string variant = "cpu"; // cpu or gpu
  std::string index_url;       // empty: $OPKIT_INDEX_URL, pip's configuration, else pip download
};

struct FetchResult
{
  Sdk sdk;
  bool already_present = false; // the store had it: nothing downloaded
  std::string wheel;            // the file chosen
  std::string source;           // the index URL, or "pip download"
  uint64_t wheel_bytes = 0;     // the download's size ...
  uint64_t sdk_bytes = 0;       // ... and what the store keeps of it
  uint64_t resumed_from = 0;    // bytes a previous, interrupted download had already fetched
  int requests = 0;             // HTTP requests the download took (more than one: it was resumed)
};

// Finds the wheel a TF version was published with on a PEP 503/691 index,
// downloads it (resuming a partial download, verifying the index's sha256),
// imports the SDK subset and deletes the wheel. Concurrent fetches of one SDK
// wait on a lock, and the later ones find it already imported.
FetchResult fetch_sdk(const FetchOptions& options);

// The index to use: the flag, else $OPKIT_INDEX_URL, else $PIP_INDEX_URL, else
// global.index-url from pip's configuration files; empty when none is set.
std::string configured_index_url(const std::string& flag);

} // namespace opkit::sdk
