#pragma once

// pip's own answer to "which index does `pip download` read, and who said
// so": pip's configuration files and its PIP_* variables, read as pip's
// configuration.py and its option parser read them.
#include "opkit/settings/settings.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opkit::sdk {

// What pip's answer depends on; real() is this process's.
struct PipEnvironment
{
  settings::Environment env;
  // A file's text; nothing when it is absent or cannot be read (pip skips those).
  std::function<std::optional<std::string>(const std::filesystem::path&)> read;
  // Whether the path exists at all (os.path.exists: a folder too).
  std::function<bool(const std::filesystem::path&)> exists;
  // sys.prefix of the python3 opkit runs pip with (its pip.conf is the
  // "site" file: an activated venv's); nothing when there is no python3.
  std::function<std::optional<std::filesystem::path>()> sys_prefix;

  static PipEnvironment real();
};

struct PipIndexUrl
{
  std::string url;                          // empty: pip's configuration names no index (pip's default)
  std::string variable;                     // the PIP_ variable that set it ...
  std::filesystem::path file;               // ... else the file,
  int line = 0;                             // the line,
  std::string section;                      // "download" or "global",
  std::string name;                         // and the name as written ("index_url", lower-cased)
  std::vector<std::filesystem::path> files; // the files pip reads, lowest precedence first
  bool no_index = false;                    // no-index is on (PIP_NO_INDEX, or a file's): pip reads find-links only

  // "/root/.config/pip/pip.conf:3 [download] index_url", "environment (PIP_INDEX_URL)"; "" when unset.
  std::string where() const;
};

// The files pip reads, lowest precedence first: the global ones (each of
// $XDG_CONFIG_DIRS, default /etc/xdg, then /etc: <dir>/pip/pip.conf and
// /etc/pip.conf), the user's (~/.pip/pip.conf, then $XDG_CONFIG_HOME or
// ~/.config /pip/pip.conf; skipped when $PIP_CONFIG_FILE names a path that
// exists), the site's (<sys.prefix>/pip.conf), then $PIP_CONFIG_FILE; none
// at all when $PIP_CONFIG_FILE is /dev/null.
std::vector<std::filesystem::path>
pip_config_files(const PipEnvironment& environment);

// The index-url `pip download` uses: a PIP_INDEX_URL variable (any case
// after PIP_, '_' or '-'), else the files' [download] section, else their
// [global] one. Within a section a later file wins, an empty value in it
// unsets the name, and any of the spellings index-url, index_url,
// --index-url counts (pip folds case, '_' into '-' and drops "--"); section
// names keep their case; [DEFAULT]'s options count in every section of its
// file. A file pip refuses (see parse_ini) is an Error(usage) here too, and
// so is an index-url spread over several lines, when it is the one pip takes.
PipIndexUrl
pip_index_url(const PipEnvironment& environment);

// The index pip reads when its configuration names none (pip's PyPI.simple_url).
inline constexpr const char* k_pip_default_index = "https://pypi.org/simple/";

// `value` (the index_url setting) as `sdk fetch` uses it: when opkit's own
// sources leave it unset, pip's answer, as Source::pip: the index-url its
// configuration gives, else its default index (detail "its default index"),
// unless no-index is on (then it stays unset, and `sdk fetch` runs `pip
// download`, which reads pip's find-links).
settings::Value
with_pip_index_url(settings::Value value, const PipEnvironment& environment);

} // namespace opkit::sdk
