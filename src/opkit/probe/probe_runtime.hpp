#pragma once

// What a framework library needs to load that its SDK does not keep: torch's
// libtorch_cpu.so names libcudart.so.12 and libcupti.so.12 even in a process
// without a GPU. The framework table names each library and the wheel that
// ships it (`probe.runtime`); the version is the one the framework wheel's
// METADATA pins. They are fetched once per SDK with pip, from the index pip's
// own configuration gives, and only those files are kept.
#include "opkit/sdk/sdk.hpp"

#include <filesystem>

namespace opkit::probe {

// <probe_dir>/runtime, holding every library the table names for this SDK's
// framework; empty when it names none (TensorFlow). Made once, atomically
// (a staging folder renamed into place): Error(missing) when the METADATA
// pins no version or pip finds no wheel, naming the distribution.
std::filesystem::path
ensure_probe_runtime(const sdk::Sdk& sdk, const std::filesystem::path& probe_dir);

} // namespace opkit::probe
