#pragma once

#include "opkit/project/framework_table.hpp"
#include "opkit/sdk/sdk.hpp"
#include "opkit/sdk/store.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::builder {

// A precompiled header of the TF headers nearly every op includes, made once
// per (SDK, compiler, flags) in $OPKIT_HOME/pch/<sdk-id>/<key>/ and shared by
// every project. A source uses it only when its flags are exactly `flags`.
struct PchSpec
{
  std::string sdk_id;
  std::string framework; // how messages name it: "TensorFlow", "PyTorch"
  std::string compiler;
  std::string compiler_identity;    // see compiler_identity()
  std::vector<std::string> flags;   // the compile flags it is made with, and a source must have
  std::vector<std::string> defines; // macros the header defines before its includes
  std::string header_text;          // opkit_pch.h
  std::string key;                  // digest of all of the above
  std::filesystem::path dir;        // <store>/<sdk-id>/<key>

  std::filesystem::path header() const { return dir / "opkit_pch.h"; }
  std::filesystem::path gch() const { return dir / "opkit_pch.h.gch"; }
  std::filesystem::path marker() const { return dir / "pch.json"; } // written last: the PCH is complete
};

// What a compiler is, without running it: its real path, size and mtime (as
// ccache's compiler_check=mtime), so an upgraded compiler gets new PCHs.
std::string
compiler_identity(const std::string& compiler);

// The PCH for an SDK's own flags (pure).
PchSpec
plan_pch(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const std::string& compiler,
         const std::string& identity, const std::filesystem::path& store);

// Whether a source can take the PCH as a prefix (-include): it includes a
// framework header (one under `include_prefixes`: "tensorflow/"), and before its first #include it defines no macro but
// the PCH's own (an op that sets something up for the TF headers keeps the
// order it wrote, compiled plainly).
bool
source_can_use_pch(std::string_view text, const std::vector<std::string>& pch_defines,
                   const std::vector<std::string>& include_prefixes);

// Makes the PCH unless it is there, under a lock per PCH (a concurrent build
// of another project waits, then uses it). False, with a warning, when the
// compiler cannot make it: the build then compiles plainly.
struct PchOutcome
{
  bool usable = false; // the PCH is there to use
  double seconds = 0;  // spent making it now (0: made before, or failed before)
};
PchOutcome
ensure_pch(const PchSpec& spec);

// Removes PCHs whose SDK is gone, whose compiler changed or vanished, and
// unfinished ones; adds them to `report`.
void
collect_stale_pchs(sdk::GcReport& report);

} // namespace opkit::builder
