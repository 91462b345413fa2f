#pragma once

#include "opkit/util/hash.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::sdk {

// Whether an archive path is a wheel's RECORD: "<name>.dist-info/RECORD" at
// the archive's top (empty and "." parts ignored, as classify_entry does).
bool
is_record_path(std::string_view path);

// A wheel's RECORD (PEP 376, PEP 427): CSV rows "path,hash,size" (fields may
// be quoted), the hash written "sha256=<URL-safe base64, unpadded>". Maps
// each path to its hash field; "" when a row has none (RECORD's own row).
// Error(usage) for a row that is not three fields.
std::map<std::string, std::string>
parse_record(std::string_view text);

// Checks the files an import keeps against the wheel's RECORD: every kept
// member must be listed there with a sha256 equal to the bytes read. The
// whole-file sha256 an index gives needs the whole file; this check needs
// only the members kept, so a wheel fetched in parts is checked as fully as
// a whole one.
class RecordCheck
{
public:
  explicit RecordCheck(std::string subject)
    : m_subject(std::move(subject))
  {
  }

  // RECORD's text, as it is met in the archive; a second RECORD is Error(usage).
  void set_record(std::string_view text);

  // A kept member's archive path and the sha256 of its bytes.
  void add(std::string path, const Sha256Digest& digest);

  // Error(usage) when there was no RECORD (not a valid wheel); Error(failed)
  // naming the first member RECORD does not list with a sha256, or whose
  // sha256 differs from it.
  void verify() const;

private:
  std::string m_subject;
  std::optional<std::map<std::string, std::string>> m_record;
  std::vector<std::pair<std::string, Sha256Digest>> m_members;
};

} // namespace opkit::sdk
