#pragma once

#include "opkit/check/checker.hpp"
#include "opkit/package/package.hpp"
#include "opkit/project/manifest.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::package {

struct SavedModelOptions
{
  std::filesystem::path export_dir;          // holds saved_model.pb or saved_model.pbtxt
  std::string tf_spec;                       // the serving runtime's TF; default: saved_model_target's choice
  std::vector<std::filesystem::path> assets; // extra files, e.g. fg.json
  bool force = false;  // add the library even when opkit check says it won't load, or its TF is older than the model's
  std::string runtime; // for the check; default: the TF version's own
  std::filesystem::path build_root;
  bool dry_run = false; // decide everything (and check the library), write nothing
};

// Which TF's library goes into the export, and what the export says of itself.
struct SavedModelTarget
{
  std::string spec;        // --tf, else the target matching the model's TF, else the newest target
  std::string model_tf;    // meta_info_def.tensorflow_version of the export; "" when it does not say
  std::string description; // what the export holds, in one line
};

// Reads the export (Error(usage) when it is not a SavedModel) and decides the
// TF whose library it gets: --tf, else the project's target matching the TF
// that wrote the model (none matching is Error(usage)). A --tf older (by
// major.minor) than the model's TF is Error(failed) naming both, unless
// --force: that TF cannot load the model. A newer one is fine (TF loads older
// SavedModels: trained on PAI with 1.12, served by EAS with 2.10.1).
SavedModelTarget
saved_model_target(const project::Manifest& manifest, const SavedModelOptions& options);

struct SavedModelResult
{
  std::string
    model; // what the export holds, in one line (e.g. "saved_model.pb: schema version 1, 1 meta graph (serve)")
  std::string model_tf;   // the TF that wrote the model ("" if unsaid)
  std::string serving_tf; // the TF of the library added
  std::filesystem::path assets_dir;
  std::vector<std::string> assets;  // every file now in assets/, sorted
  std::vector<std::string> removed; // added by an earlier run, not asked for by this one: taken out
  std::vector<std::string> changed; // added by an earlier run but changed since: kept, now the user's
  check::CheckReport check;
  bool written = false;            // false with dry_run
  std::vector<PackedFile> planned; // with dry_run: what assets/ would hold, manifest included
};

// Puts the op library built for the serving TF, and the extra files, into
// EXPORT_DIR/assets/ as EasyRec's --asset_files does, with a manifest. The
// export must be a SavedModel: a saved_model.pb that parses as one
// (read_saved_model), or a saved_model.pbtxt holding meta_graphs; else
// Error(usage) and nothing is written. The manifest records which files opkit
// added (`added_by_opkit`): assets/ ends up holding exactly what this run adds
// plus the files opkit did not put there, which are never replaced or removed
// (one this run would replace with different content is Error(usage)). The new
// assets/ is staged beside the old one and swapped in; running it twice gives
// the same folder. With dry_run nothing is written and `planned` says what
// assets/ would hold.
SavedModelResult
package_saved_model(const project::Manifest& manifest, const SavedModelOptions& options);

// The same, for a target saved_model_target already decided (the CLI decides
// it before building), so the export is read and the SDK resolved once.
SavedModelResult
package_saved_model(const project::Manifest& manifest, const SavedModelOptions& options,
                    const SavedModelTarget& target);

} // namespace opkit::package
