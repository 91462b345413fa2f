#include "opkit/util/archive.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace opkit {

namespace {

struct ReadArchiveDeleter
{
  void operator()(archive* a) const { archive_read_free(a); }
};

} // namespace

void
for_each_archive_entry(const std::filesystem::path& path, const std::function<void(ArchiveEntry&)>& visit)
{
  std::unique_ptr<archive, ReadArchiveDeleter> reader(archive_read_new());
  archive* a = reader.get();
  archive_read_support_format_zip(a);
  archive_read_support_format_tar(a);
  archive_read_support_filter_gzip(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fail(ExitCode::usage, "{}: cannot open archive: {}", path, archive_error_string(a));
  }
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) {
      return;
    }
    if (rc < ARCHIVE_WARN) {
      fail(ExitCode::usage, "{}: damaged archive: {}", path, archive_error_string(a));
    }
    const char* name = archive_entry_pathname(entry);
    ArchiveEntry item;
    item.path = name != nullptr ? name : "";
    item.is_regular = archive_entry_filetype(entry) == AE_IFREG && archive_entry_hardlink(entry) == nullptr;
    item.size = archive_entry_size(entry);
    item.read = [a, &path, &item](char* buffer, size_t capacity) -> size_t {
      la_ssize_t n = archive_read_data(a, buffer, capacity);
      if (n < 0) {
        fail(ExitCode::usage, "{}: damaged entry {}: {}", path, item.path, archive_error_string(a));
      }
      return static_cast<size_t>(n);
    };
    visit(item);
  }
}

} // namespace opkit
