#include "opkit/check/indexed_library.hpp"

#include "opkit/elf/symbol_index.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/log.hpp"

#include <atomic>
#include <mutex>

namespace opkit::check {

namespace stdfs = std::filesystem;

namespace {

// A library's symbols answered from its mapped index. The index is checked
// where it is read; should a lookup meet a corrupt entry, this process reads
// the library itself from then on, and the index is deleted so that the next
// run remakes it.
class IndexedSymbols : public elf::SymbolTable
{
public:
  IndexedSymbols(std::shared_ptr<const elf::SymbolIndex> index, stdfs::path library, stdfs::path index_file)
    : m_index(std::move(index))
    , m_library(std::move(library))
    , m_index_file(std::move(index_file))
  {
  }

  size_t size() const override { return m_corrupt ? fallback().size() : m_index->size(); }

  std::vector<elf::SymbolDefinition> find(std::string_view name) const override
  {
    std::vector<elf::SymbolDefinition> found;
    if (!m_corrupt && m_index->find(name, found)) {
      return found;
    }
    return fallback().find(name);
  }

  void for_each(const std::function<void(std::string_view, const elf::SymbolDefinition&)>& visit) const override
  {
    if (m_corrupt || !m_index->for_each(visit)) {
      fallback().for_each(visit);
    }
  }

  void for_each_matching(
    const std::function<bool(std::string_view)>& wanted,
    const std::function<void(std::string_view, const elf::SymbolDefinition&)>& visit) const override
  {
    if (m_corrupt || !m_index->for_each_matching(wanted, visit)) {
      fallback().for_each_matching(wanted, visit);
    }
  }

private:
  const elf::SymbolTable& fallback() const
  {
    std::call_once(m_fallback_once, [this] {
      m_corrupt = true;
      log_debug("symbol index: {} is corrupt; reading {} itself, and removing the index", m_index_file, m_library);
      std::error_code ec;
      stdfs::remove(m_index_file, ec); // the next run remakes it
      m_read = library_from_elf(elf::read_elf(m_library), m_library).symbols;
    });
    return m_read.table();
  }

  std::shared_ptr<const elf::SymbolIndex> m_index;
  stdfs::path m_library;
  stdfs::path m_index_file;
  mutable std::once_flag m_fallback_once;
  mutable std::atomic<bool> m_corrupt{false};
  mutable elf::ExportedSymbols m_read;
};

ProfileLibrary
mapped_library(const stdfs::path& library, const IndexPlace& place, std::shared_ptr<const elf::SymbolIndex> index)
{
  log_debug("symbol index: mapped {} for {} ({} symbols)", place.file, library, index->size());
  std::string soname = index->soname();
  std::vector<std::string> versions = index->version_definitions();
  auto symbols = std::make_shared<IndexedSymbols>(std::move(index), library, place.file);
  return known_library(std::move(soname), library, std::move(versions), elf::ExportedSymbols(std::move(symbols)));
}

// Reads the library, writes its index, and returns the library as read.
ProfileLibrary
read_and_write_index(const stdfs::path& library, const stdfs::path& index_file)
{
  elf::LibraryExports read = elf::write_symbol_index(library, index_file);
  return known_library(std::move(read.soname), library, std::move(read.versions), std::move(read.symbols));
}

} // namespace

IndexPlace
cache_place(const stdfs::path& library)
{
  stdfs::path home = sdk::opkit_home();
  stdfs::path file = home / "cache" / "symbols" / stdfs::absolute(library).relative_path();
  file += ".idx";
  return {file, home / "locks" / "cache.lock"};
}

ProfileLibrary
indexed_library(const stdfs::path& library, const IndexPlace& place)
{
  elf::SourceStamp stamp = elf::stamp_of(library);
  elf::SymbolIndex::Opened opened = elf::SymbolIndex::open(place.file, stamp);
  if (opened.index) {
    return mapped_library(library, place, std::move(opened.index));
  }
  try {
    fs::FileLock lock(place.lock);
    // Another process may have made it while this one waited for the lock.
    elf::SymbolIndex::Opened again = elf::SymbolIndex::open(place.file, stamp);
    if (again.index) {
      return mapped_library(library, place, std::move(again.index));
    }
    ProfileLibrary read = read_and_write_index(library, place.file);
    log_debug("symbol index: wrote {} for {} (it was {})", place.file, library, opened.problem);
    return read;
  } catch (const Error& e) {
    if (e.code() != ExitCode::system) {
      throw; // the library itself is malformed: the caller reports it
    }
    log_debug("symbol index: {} ({}); reading {} itself", e.what(), place.file, library);
    return library_from_elf(elf::read_elf(library), library);
  }
}

namespace {

// An index with no library behind it: a corrupt entry is a lookup that finds nothing.
class KeptIndexSymbols : public elf::SymbolTable
{
public:
  explicit KeptIndexSymbols(std::shared_ptr<const elf::SymbolIndex> index)
    : m_index(std::move(index))
  {
  }
  size_t size() const override { return m_index->size(); }
  std::vector<elf::SymbolDefinition> find(std::string_view name) const override
  {
    std::vector<elf::SymbolDefinition> found;
    return m_index->find(name, found) ? found : std::vector<elf::SymbolDefinition>{};
  }
  void for_each(const std::function<void(std::string_view, const elf::SymbolDefinition&)>& visit) const override
  {
    m_index->for_each(visit);
  }
  void for_each_matching(
    const std::function<bool(std::string_view)>& wanted,
    const std::function<void(std::string_view, const elf::SymbolDefinition&)>& visit) const override
  {
    m_index->for_each_matching(wanted, visit);
  }

private:
  std::shared_ptr<const elf::SymbolIndex> m_index;
};

} // namespace

elf::ExportedSymbols
host_symbols_on_first_use(const stdfs::path& library)
{
  return elf::ExportedSymbols(std::make_shared<elf::OnFirstUseTable>(
    [library] { return indexed_library(library, cache_place(library)).symbols.shared_table(); }));
}

namespace {

// The kept index at place.file remade in the current format, when it is a
// sound one of format 3; what opening it gives then.
elf::SymbolIndex::Opened
upgraded_kept_index(const IndexPlace& place, elf::SymbolIndex::Opened opened)
{
  if (opened.other_format != 3) {
    return opened;
  }
  try {
    fs::FileLock lock(place.lock);
    elf::SymbolIndex::Opened again = elf::SymbolIndex::open(place.file, std::nullopt);
    if (again.other_format != 3) {
      return again; // remade while this process waited
    }
    elf::SourceStamp stamp;
    std::optional<elf::LibraryExports> read = elf::read_format_3_index(fs::read_file(place.file), stamp);
    if (!read) {
      return {nullptr, "corrupt: an index of format 3 that does not read as one"};
    }
    fs::write_file_atomic(place.file, elf::build_symbol_index(*read, stamp));
    log_debug("symbol index: {} remade in the current format", place.file);
  } catch (const Error& e) {
    return {nullptr, e.what()};
  }
  return elf::SymbolIndex::open(place.file, std::nullopt);
}

} // namespace

std::optional<ProfileLibrary>
index_only_library(const IndexPlace& place)
{
  elf::SymbolIndex::Opened opened = upgraded_kept_index(place, elf::SymbolIndex::open(place.file, std::nullopt));
  if (!opened.index) {
    log_debug("symbol index: {} not used: {}", place.file, opened.problem);
    return std::nullopt;
  }
  std::string soname = opened.index->soname();
  std::vector<std::string> versions = opened.index->version_definitions();
  auto symbols = std::make_shared<KeptIndexSymbols>(std::move(opened.index));
  return known_library(std::move(soname), "", std::move(versions), elf::ExportedSymbols(std::move(symbols)));
}

} // namespace opkit::check
