#include "opkit/sdk/import_progress.hpp"

#include "opkit/sdk/zip_directory.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

// The archive's central directory, read from the local file; none when it is not a readable zip.
bool
read_totals(const stdfs::path& source, uint64_t& entries, uint64_t& bytes)
{
  std::error_code ec;
  if (!stdfs::is_regular_file(source, ec)) {
    return false;
  }
  uint64_t size = stdfs::file_size(source, ec);
  std::ifstream in(source, std::ios::binary);
  if (ec || !in) {
    return false;
  }
  auto read = [&in, size](uint64_t offset, uint64_t count) {
    count = std::min(count, size - std::min(offset, size));
    std::string data(count, '\0');
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(data.data(), static_cast<std::streamsize>(count));
    data.resize(static_cast<size_t>(in.gcount()));
    return data;
  };
  uint64_t tail = std::min<uint64_t>(size, 64 * 1024 + 22);
  try {
    ZipDirectory directory = read_zip_directory(source.string(), size, read(size - tail, tail), read);
    entries = directory.members.size();
    for (const ZipMember& member : directory.members) {
      bytes += member.uncompressed_size;
    }
    return entries > 0;
  } catch (const Error&) {
    return false; // not a zip: the import says why
  }
}

} // namespace

ImportProgress::ImportProgress(const stdfs::path& source)
  : m_enabled(verbosity() >= Verbosity::normal)
{
  if (m_enabled && !read_totals(source, m_total_entries, m_total_bytes)) {
    m_total_entries = 0;
    m_total_bytes = 0;
  }
  if (m_enabled) {
    m_redraw = progress::stderr_style().redraw;
    m_step = std::make_unique<progress::Step>("importing " + progress::short_file_name(source.filename().string()));
  }
}

ImportProgress::~ImportProgress()
{
  finish();
}

std::string
ImportProgress::describe(uint64_t entries, uint64_t total_entries, uint64_t bytes, uint64_t total_bytes,
                         uint64_t kept_bytes)
{
  if (total_entries == 0) {
    return fmt::format("{} entries, kept {:.1f} MB", entries, kept_bytes / 1e6);
  }
  uint64_t percent = total_bytes > 0 ? bytes * 100 / total_bytes : entries * 100 / total_entries;
  return fmt::format("{}% ({} of {} entries, {:.1f} of {:.1f} MB), kept {:.1f} MB", std::min<uint64_t>(percent, 100),
                     entries, total_entries, bytes / 1e6, total_bytes / 1e6, kept_bytes / 1e6);
}

void
ImportProgress::entry(uint64_t bytes, uint64_t kept_bytes)
{
  ++m_entries;
  m_bytes += bytes;
  if (!m_enabled) {
    return;
  }
  m_step->detail(describe(m_entries, m_total_entries, m_bytes, m_total_bytes, kept_bytes));
  if (m_redraw) {
    return;
  }
  // Not a terminal: a line at 25, 50 and 75%.
  if (m_total_bytes == 0 || m_next_quarter > 3 || m_bytes * 4 < m_total_bytes * m_next_quarter) {
    return;
  }
  while (m_next_quarter <= 3 && m_bytes * 4 >= m_total_bytes * m_next_quarter) {
    ++m_next_quarter;
  }
  log_info("importing: {}", describe(m_entries, m_total_entries, m_bytes, m_total_bytes, kept_bytes));
}

void
ImportProgress::finish()
{
  m_step.reset();
}

} // namespace opkit::sdk
