// The libarchive functions util/archive.cpp calls, forwarding to libarchive
// opened on first use (util/lazy_library.hpp says why). opkit is not linked with it.

#include "opkit/util/lazy_library.hpp"

#include <archive.h>
#include <archive_entry.h>

namespace {

constexpr opkit::LazyLibrary k_archive(OPKIT_ARCHIVE_SONAME, "libarchive13");

} // namespace

extern "C"
{

  // --- reading

  OPKIT_LAZY_FORWARD(k_archive, archive*, archive_read_new, (), ())
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_support_format_zip, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_support_format_tar, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_support_filter_gzip, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_support_format_ar, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_support_filter_xz, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_open_filename, (archive * a, const char* file, size_t block_size),
                     (a, file, block_size))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_next_header, (archive * a, archive_entry** entry), (a, entry))
  OPKIT_LAZY_FORWARD(k_archive, la_ssize_t, archive_read_data, (archive * a, void* buffer, size_t size),
                     (a, buffer, size))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_read_free, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, const char*, archive_error_string, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_errno, (archive * a), (a))

  // --- writing

  OPKIT_LAZY_FORWARD(k_archive, archive*, archive_write_new, (), ())
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_set_format_pax_restricted, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_set_format_zip, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_add_filter_gzip, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_set_options, (archive * a, const char* options), (a, options))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_open_fd, (archive * a, int fd), (a, fd))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_header, (archive * a, archive_entry* entry), (a, entry))
  OPKIT_LAZY_FORWARD(k_archive, la_ssize_t, archive_write_data, (archive * a, const void* buffer, size_t size),
                     (a, buffer, size))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_close, (archive * a), (a))
  OPKIT_LAZY_FORWARD(k_archive, int, archive_write_free, (archive * a), (a))

  // --- entries

  OPKIT_LAZY_FORWARD(k_archive, archive_entry*, archive_entry_new, (), ())
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_free, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, const char*, archive_entry_pathname, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, const char*, archive_entry_hardlink, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, __LA_MODE_T, archive_entry_filetype, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, la_int64_t, archive_entry_size, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, __LA_MODE_T, archive_entry_perm, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, const char*, archive_entry_symlink, (archive_entry * entry), (entry))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_pathname, (archive_entry * entry, const char* path),
                     (entry, path))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_filetype, (archive_entry * entry, unsigned int type),
                     (entry, type))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_perm, (archive_entry * entry, __LA_MODE_T mode), (entry, mode))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_size, (archive_entry * entry, la_int64_t size), (entry, size))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_mtime,
                     (archive_entry * entry, time_t seconds, long nanoseconds), (entry, seconds, nanoseconds))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_uid, (archive_entry * entry, la_int64_t uid), (entry, uid))
  OPKIT_LAZY_FORWARD(k_archive, void, archive_entry_set_gid, (archive_entry * entry, la_int64_t gid), (entry, gid))

} // extern "C"
