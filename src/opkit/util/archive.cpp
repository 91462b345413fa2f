#include "opkit/util/archive.hpp"

#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>

namespace opkit {

namespace {

struct ReadArchiveDeleter
{
  void operator()(archive* a) const { archive_read_free(a); }
};

// libarchive's message for the last failure; it gives none (a null pointer)
// for some damaged inputs, which must still make a message, not a crash.
std::string
archive_error(archive* a)
{
  const char* message = archive_error_string(a);
  return message != nullptr ? escape_text(message) : std::string("the data ends early or is damaged");
}

} // namespace

void
for_each_archive_entry(const std::filesystem::path& path, const std::function<void(ArchiveEntry&)>& visit,
                       ArchiveKinds kinds)
{
  std::unique_ptr<archive, ReadArchiveDeleter> reader(archive_read_new());
  archive* a = reader.get();
  if (kinds == ArchiveKinds::zip_or_tar) {
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_filter_gzip(a);
  } else if (kinds == ArchiveKinds::ar) {
    archive_read_support_format_ar(a);
  } else {
    archive_read_support_format_tar(a);
    archive_read_support_filter_xz(a);
  }
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    fail(ExitCode::usage, "{}: cannot open archive: {}", path, archive_error(a));
  }
  archive_entry* entry = nullptr;
  while (true) {
    int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) {
      return;
    }
    if (rc < ARCHIVE_WARN) {
      fail(ExitCode::usage, "{}: damaged archive: {}", path, archive_error(a));
    }
    const char* name = archive_entry_pathname(entry);
    ArchiveEntry item;
    item.path = name != nullptr ? name : "";
    item.is_regular = archive_entry_filetype(entry) == AE_IFREG && archive_entry_hardlink(entry) == nullptr;
    item.is_folder = archive_entry_filetype(entry) == AE_IFDIR && archive_entry_hardlink(entry) == nullptr;
    item.size = archive_entry_size(entry);
    item.executable = item.is_regular && (archive_entry_perm(entry) & 0111) != 0;
    const char* target = archive_entry_filetype(entry) == AE_IFLNK ? archive_entry_symlink(entry) : nullptr;
    item.symlink = target != nullptr ? target : "";
    item.read = [a, &path, &item](char* buffer, size_t capacity) -> size_t {
      la_ssize_t n = archive_read_data(a, buffer, capacity);
      if (n < 0) {
        fail(ExitCode::usage, "{}: damaged entry {}: {}", path, item.path, archive_error(a));
      }
      return static_cast<size_t>(n);
    };
    visit(item);
  }
}

namespace {

struct WriteArchiveDeleter
{
  void operator()(archive* a) const { archive_write_free(a); }
};

struct EntryDeleter
{
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

// Why a write failed: the system's cause where libarchive kept one ("Write
// error" is all its message says of a full disk), else its message.
std::string
write_error(archive* a)
{
  int error = archive_errno(a);
  return error > 0 && error != EINVAL ? std::string(std::strerror(error)) : archive_error(a);
}

void
check_rc(archive* a, int rc, const std::filesystem::path& output)
{
  if (rc < ARCHIVE_WARN) {
    fail(ExitCode::system, "{}: cannot write archive: {}", output, write_error(a));
  }
}

// Errors name `output`, the archive the user asked for, never its hidden temporary.
archive*
open_writer(std::unique_ptr<archive, WriteArchiveDeleter>& writer, ArchiveFormat format, const fs::AtomicFile& file,
            const std::filesystem::path& output)
{
  writer.reset(archive_write_new());
  archive* a = writer.get();
  if (format == ArchiveFormat::tar_gz) {
    // pax-restricted: plain ustar unless a name needs an extension header.
    check_rc(a, archive_write_set_format_pax_restricted(a), output);
    check_rc(a, archive_write_add_filter_gzip(a), output);
    check_rc(a, archive_write_set_options(a, "gzip:!timestamp"), output);
  } else {
    check_rc(a, archive_write_set_format_zip(a), output);
    check_rc(a, archive_write_set_options(a, "zip:compression=deflate"), output);
  }
  check_rc(a, archive_write_open_fd(a, file.fd()), output);
  return a;
}

void
write_header(archive* a, const std::string& path, bool directory, int mode, int64_t size, int64_t mtime,
             const std::filesystem::path& output)
{
  std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
  archive_entry_set_pathname(entry.get(), path.c_str());
  archive_entry_set_filetype(entry.get(), directory ? AE_IFDIR : AE_IFREG);
  archive_entry_set_perm(entry.get(), static_cast<mode_t>(mode));
  archive_entry_set_size(entry.get(), directory ? 0 : size);
  archive_entry_set_mtime(entry.get(), mtime, 0);
  archive_entry_set_uid(entry.get(), 0);
  archive_entry_set_gid(entry.get(), 0);
  check_rc(a, archive_write_header(a, entry.get()), output);
}

void
write_member(archive* a, const ArchiveMember& member, int64_t mtime, const std::filesystem::path& output)
{
  int mode = member.executable ? 0755 : 0644;
  if (member.source.empty()) {
    write_header(a, member.path, false, mode, static_cast<int64_t>(member.content.size()), mtime, output);
    if (!member.content.empty() && archive_write_data(a, member.content.data(), member.content.size()) < 0) {
      fail(ExitCode::system, "{}: cannot write {}: {}", output, member.path, write_error(a));
    }
    return;
  }
  std::error_code ec;
  int64_t size = static_cast<int64_t>(std::filesystem::file_size(member.source, ec));
  if (ec) {
    fail(ExitCode::system, "{}: cannot read: {}", member.source, ec.message());
  }
  write_header(a, member.path, false, mode, size, mtime, output);
  std::ifstream in(member.source, std::ios::binary);
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    if (archive_write_data(a, buffer, static_cast<size_t>(in.gcount())) < 0) {
      fail(ExitCode::system, "{}: cannot write {}: {}", output, member.path, write_error(a));
    }
  }
}

// Every parent folder of every member, so extractors create them with fixed modes.
std::set<std::string>
parent_folders(const std::vector<ArchiveMember>& members)
{
  std::set<std::string> folders;
  for (const ArchiveMember& member : members) {
    for (size_t pos = member.path.find('/'); pos != std::string::npos; pos = member.path.find('/', pos + 1)) {
      folders.insert(member.path.substr(0, pos + 1));
    }
  }
  return folders;
}

} // namespace

void
write_archive(const std::filesystem::path& output, ArchiveFormat format, std::vector<ArchiveMember> members,
              int64_t mtime)
{
  std::sort(members.begin(), members.end(),
            [](const ArchiveMember& x, const ArchiveMember& y) { return x.path < y.path; });
  fs::AtomicFile file(output); // unique: concurrent runs never share it
  {
    std::unique_ptr<archive, WriteArchiveDeleter> writer;
    archive* a = open_writer(writer, format, file, output);
    // Zip (wheels) lists files only; tar lists folders too, as tar -c does.
    if (format == ArchiveFormat::tar_gz) {
      for (const std::string& folder : parent_folders(members)) {
        write_header(a, folder, true, 0755, 0, mtime, output);
      }
    }
    for (const ArchiveMember& member : members) {
      write_member(a, member, mtime, output);
    }
    check_rc(a, archive_write_close(a), output);
  }
  file.commit();
}

} // namespace opkit
