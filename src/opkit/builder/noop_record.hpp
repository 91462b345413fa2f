#pragma once

// A no-op `opkit build`, kept so that the same call, with nothing changed,
// answers at once, as ninja's own no-op does: no planning, no fitting, no
// check and no ninja. Kept in <build>/.opkit-noop/, one record per call:
//   - the call: opkit's own stamp, its arguments, the working folder and the
//     environment, compared whole;
//   - what that no-op printed (stdout, and the notes and warnings it logged);
//   - the stamp (size, mtime, inode) of every file and folder that decided
//     it was a no-op: the project's folders and opkit.yaml, the config files,
//     the SDKs and their store, PATH's folders (compilers, ccache), every
//     input ninja knows (sources, headers from its deps log, archives) and
//     every file in each target's folder.
// One stamp differs, or one file was changed in the second before the record
// was made (a racily clean file, as git calls it): the build runs in full.
// A build folder keeps its 16 newest records. A record keeps the call's
// SHA-256, never the environment itself (it holds tokens and passwords),
// and starts with a checksum of itself: a damaged, emptied, oversized (over
// 16 MB) or linked record is not replayed, and what is replayed is escaped
// as any text opkit prints.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace opkit::builder {

struct NoopCall
{
  std::string key;                  // SHA-256 of the call's material (never the material: it holds secrets)
  std::filesystem::path build_root; // the build folder the record is kept in
  std::filesystem::path record;     // <build>/.opkit-noop/<key's first 16 digits>.json
  double started = 0;               // when the call began (seconds since the epoch)
};

// This call, for a build rooted at `build_root` (empty: the build folder of
// the project around the current folder). nullopt when no project is found:
// the full build then says why.
std::optional<NoopCall>
noop_call(const std::filesystem::path& build_root);

struct NoopOutput
{
  std::string printed;            // stdout, as it was
  std::vector<std::string> notes; // the notes and warnings it logged (util/log LogTap)
};

// The kept output when the record is this call's and every stamp holds.
std::optional<NoopOutput>
replay_noop(const NoopCall& call);

// Keeps this no-op. `watched` are the files and folders the plan read (the
// builder's BuildReport::watched); the project's folders, ninja's inputs,
// its deps log and the targets' folders are added here. Nothing is kept when a watched file
// changed since `call.started` (less a second), or when ninja cannot list
// them; a record that cannot be written is a debug line, never an error.
void
record_noop(const NoopCall& call, const std::filesystem::path& build_root, const std::filesystem::path& project_root,
            const std::vector<std::filesystem::path>& watched, const std::vector<std::filesystem::path>& target_dirs,
            const NoopOutput& output);

} // namespace opkit::builder
