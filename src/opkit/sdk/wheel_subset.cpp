#include "opkit/sdk/wheel_subset.hpp"

#include "opkit/sdk/importer.hpp"
#include "opkit/sdk/wheel_record.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace opkit::sdk {

std::vector<ByteRange>
coalesce_ranges(std::vector<ByteRange> ranges, std::uint64_t max_gap, std::size_t max_ranges)
{
  ranges.erase(std::remove_if(ranges.begin(), ranges.end(), [](const ByteRange& r) { return r.end <= r.first; }),
               ranges.end());
  std::sort(ranges.begin(), ranges.end(), [](const ByteRange& a, const ByteRange& b) {
    return a.first < b.first || (a.first == b.first && a.end < b.end);
  });
  std::vector<ByteRange> merged;
  for (const ByteRange& range : ranges) {
    if (!merged.empty()
        && range.first <= merged.back().end + std::min(max_gap, ~std::uint64_t{0} - merged.back().end)) {
      merged.back().end = std::max(merged.back().end, range.end);
    } else {
      merged.push_back(range);
    }
  }
  while (merged.size() > std::max<std::size_t>(max_ranges, 1)) {
    std::size_t closest = 0;
    for (std::size_t i = 1; i + 1 < merged.size(); ++i) {
      if (merged[i + 1].first - merged[i].end < merged[closest + 1].first - merged[closest].end) {
        closest = i;
      }
    }
    merged[closest].end = merged[closest + 1].end;
    merged.erase(merged.begin() + static_cast<long>(closest) + 1);
  }
  return merged;
}

std::vector<ZipMember>
subset_members(const ZipDirectory& directory)
{
  std::vector<ZipMember> members;
  for (const ZipMember& member : directory.members) {
    EntryKind kind = classify_entry(member.name).kind;
    if ((kind != EntryKind::skip && kind != EntryKind::process_library) || is_record_path(member.name)) {
      members.push_back(member);
    }
  }
  std::stable_sort(members.begin(), members.end(),
                   [](const ZipMember& a, const ZipMember& b) { return a.offset < b.offset; });
  return members;
}

SubsetWriter::SubsetWriter(std::string subject, std::filesystem::path path, std::vector<ZipMember> members)
  : m_subject(std::move(subject))
  , m_path(std::move(path))
  , m_members(std::move(members))
  , m_file(std::fopen(m_path.c_str(), "wb"))
{
  if (!m_file) {
    fail(ExitCode::system, "{}: cannot create: {}", m_path, std::strerror(errno));
  }
  m_next = m_members.empty() ? 0 : m_members.front().offset;
}

SubsetWriter::~SubsetWriter()
{
  if (!m_finished) {
    m_file.reset();
    std::error_code ec;
    std::filesystem::remove(m_path, ec);
  }
}

void
SubsetWriter::write(std::string_view bytes)
{
  if (std::fwrite(bytes.data(), 1, bytes.size(), m_file.get()) != bytes.size()) {
    fail(ExitCode::system, "{}: cannot write: {}", m_path, std::strerror(errno));
  }
  m_written += bytes.size();
}

void
SubsetWriter::feed(std::uint64_t offset, std::string_view bytes)
{
  std::uint64_t end = offset + bytes.size();
  while (m_index < m_members.size() && end > m_next) {
    const ZipMember& member = m_members[m_index];
    if (offset > m_next) {
      fail(ExitCode::system, "{}: bytes {}-{} of '{}' were not fetched", m_subject, m_next, offset - 1, member.name);
    }
    if (m_next == member.offset) {
      m_offsets.push_back(m_written);
      m_header.clear();
    }
    std::uint64_t upto = std::min(end, member.end);
    std::string_view piece = bytes.substr(m_next - offset, upto - m_next);
    // Gather the local header as it passes; it is checked once the member is whole.
    std::string_view rest = piece;
    for (std::size_t want = header_wanted(); m_header.size() < want && !rest.empty(); want = header_wanted()) {
      std::size_t take = std::min<std::size_t>(want - m_header.size(), rest.size());
      m_header.append(rest.substr(0, take));
      rest.remove_prefix(take);
    }
    write(piece);
    m_next = upto;
    if (m_next == member.end) {
      member_done();
    }
  }
}

std::size_t
SubsetWriter::header_wanted() const
{
  return m_header.size() < k_local_header_fixed
           ? k_local_header_fixed
           : local_header_size(m_subject, m_members[m_index],
                               std::string_view(m_header).substr(0, k_local_header_fixed));
}

void
SubsetWriter::member_done()
{
  const ZipMember& member = m_members[m_index];
  if (m_header.size() < header_wanted()) {
    fail(ExitCode::usage, "{}: damaged archive: the local header of '{}' is truncated", m_subject, member.name);
  }
  check_local_header(m_subject, member, m_header);
  ++m_index;
  if (m_index < m_members.size()) {
    m_next = m_members[m_index].offset;
  }
}

std::uint64_t
SubsetWriter::finish()
{
  if (m_index != m_members.size()) {
    fail(ExitCode::system, "{}: '{}' was not fetched whole", m_subject, m_members[m_index].name);
  }
  write(write_central_directory(m_members, m_offsets, m_written));
  if (std::fclose(m_file.release()) != 0) {
    fail(ExitCode::system, "{}: cannot write: {}", m_path, std::strerror(errno));
  }
  m_finished = true;
  return m_written;
}

} // namespace opkit::sdk
