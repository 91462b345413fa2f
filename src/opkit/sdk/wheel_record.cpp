#include "opkit/sdk/wheel_record.hpp"

#include "opkit/sdk/importer.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/strings.hpp"

namespace opkit::sdk {

namespace {

// CSV as Python's csv module writes it: a quoted field may hold commas,
// line breaks and doubled quotes. Rows end at \n (a \r before it is dropped).
std::vector<std::vector<std::string>>
parse_csv(std::string_view text)
{
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  bool any = false; // the row has begun
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field.push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field.push_back(c);
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      any = true;
    } else if (c == '\n') {
      if (any || !field.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
      }
      row.clear();
      field.clear();
      any = false;
    } else if (c != '\r' || (i + 1 < text.size() && text[i + 1] != '\n')) {
      field.push_back(c);
      any = true;
    }
  }
  if (any || !field.empty()) {
    row.push_back(std::move(field));
    rows.push_back(std::move(row));
  }
  return rows;
}

} // namespace

bool
is_record_path(std::string_view path)
{
  std::vector<std::string> parts = archive_path_parts(path);
  return parts.size() == 2 && parts[0].size() > 10 && ends_with(parts[0], ".dist-info") && parts[1] == "RECORD";
}

std::map<std::string, std::string>
parse_record(std::string_view text)
{
  std::map<std::string, std::string> record;
  size_t line = 0;
  for (std::vector<std::string>& row : parse_csv(text)) {
    ++line;
    if (row.size() != 3) {
      fail(ExitCode::usage, "RECORD row {}: expected path,hash,size, got {} field{}", line, row.size(),
           row.size() == 1 ? "" : "s");
    }
    record.emplace(std::move(row[0]), std::move(row[1]));
  }
  return record;
}

void
RecordCheck::set_record(std::string_view text)
{
  if (m_record) {
    fail(ExitCode::usage, "{}: the wheel holds two RECORD files", m_subject);
  }
  try {
    m_record = parse_record(text);
  } catch (const Error& e) {
    fail(ExitCode::usage, "{}: {}", m_subject, e.what());
  }
}

void
RecordCheck::add(std::string path, const Sha256Digest& digest)
{
  m_members.emplace_back(std::move(path), digest);
}

void
RecordCheck::verify() const
{
  if (!m_record) {
    throw Error(ExitCode::usage, fmt::format("{}: not a wheel: it has no *.dist-info/RECORD", m_subject),
                "the files it holds cannot be verified");
  }
  for (const auto& [path, digest] : m_members) {
    auto listed = m_record->find(path);
    if (listed == m_record->end() || !starts_with(listed->second, "sha256=")) {
      fail(ExitCode::failed, "{}: {}: {} in the wheel's RECORD; refusing the wheel", m_subject, path,
           listed == m_record->end() ? "not listed" : "no sha256");
    }
    std::string recorded = listed->second.substr(7);
    recorded.erase(recorded.find_last_not_of('=') + 1); // tolerate padding
    std::string actual = to_base64url(digest);
    if (recorded != actual) {
      fail(ExitCode::failed,
           "{}: {}: sha256 differs from the wheel's RECORD (recorded {}, read {}); refusing the wheel", m_subject, path,
           recorded, actual);
    }
  }
}

} // namespace opkit::sdk
