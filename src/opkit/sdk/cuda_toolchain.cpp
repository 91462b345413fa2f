#include "opkit/sdk/cuda_toolchain.hpp"

#include "opkit/settings/settings.hpp"
#include "opkit/util/archive.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/file_handle.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/http.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <cstring>

namespace opkit::sdk {

namespace stdfs = std::filesystem;

namespace {

const char* k_toolchain_stamp = ".opkit-toolchain";              // written last: the folder is whole
constexpr uint64_t k_max_deb_data_bytes = uint64_t{2} << 30;     // nvidia-cuda-dev's data.tar.xz: 774 MB
constexpr uint64_t k_max_deb_unpacked_bytes = uint64_t{8} << 30; // what one package may unpack to
constexpr size_t k_max_deb_files = 200000;

// The path an entry names, without tar's leading "./"; empty when it leaves the folder.
std::string
deb_entry_path(const std::string& stored)
{
  std::string path = stored;
  while (starts_with(path, "./")) {
    path.erase(0, 2);
  }
  if (path.empty() || path.front() == '/' || !fs::stays_inside(path)) {
    return "";
  }
  return path;
}

// A plain file name: no folder, not "." or "..".
bool
deb_sibling_name(const std::string& target)
{
  return !target.empty() && target.find('/') == std::string::npos && target != "." && target != "..";
}

bool
deb_path_kept(const std::string& path, const std::vector<std::string>& keep)
{
  for (const std::string& prefix : keep) {
    if (prefix.back() == '/' ? starts_with(path, prefix) : path == prefix) {
      return true;
    }
  }
  return false;
}

void
copy_deb_entry(ArchiveEntry& entry, const stdfs::path& dest, uint64_t budget, const stdfs::path& source)
{
  UniqueFd fd{::open(dest.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)};
  if (!fd.valid()) {
    fail(ExitCode::system, "{}: cannot create: {}", dest, std::strerror(errno));
  }
  char buffer[1 << 16];
  size_t n = 0;
  uint64_t written = 0;
  while ((n = entry.read(buffer, sizeof buffer)) > 0) {
    written += n;
    if (written > budget) {
      fail(ExitCode::usage, "{}: {}: larger than opkit unpacks ({} MiB)", source, escape_text(entry.path),
           budget >> 20);
    }
    fs::write_all(fd.get(), std::string_view(buffer, n), dest);
  }
  if (entry.executable && ::fchmod(fd.get(), 0755) != 0) {
    fail(ExitCode::system, "{}: cannot make executable: {}", dest, std::strerror(errno));
  }
}

std::string
deb_file_name(const std::string& file)
{
  size_t slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

// Downloads one package into downloads/ (resuming), verified; returns its path.
stdfs::path
download_deb(const project::CudaToolchainSpec& spec, const project::ToolchainPackage& package,
             const stdfs::path& downloads)
{
  std::string name = deb_file_name(package.file);
  stdfs::path done = downloads / name;
  std::error_code ec;
  if (stdfs::exists(done, ec) && sha256_hex_file(done) == package.sha256) {
    return done;
  }
  stdfs::path partial = downloads / (name + ".partial");
  HttpOptions options;
  options.limits = settings::net_limits();
  options.progress = ::isatty(2) != 0 && verbosity() != Verbosity::quiet;
  log_info("downloading {} ...", name);
  http_download(spec.archive + package.file, partial, options);
  std::string actual = sha256_hex_file(partial);
  if (actual != package.sha256) {
    stdfs::remove(partial, ec);
    fail(ExitCode::failed, "{}: sha256 mismatch: configs/cuda/toolchains.yaml says {}, the download is {}; removed it",
         name, package.sha256, actual);
  }
  stdfs::rename(partial, done, ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", done, ec.message());
  }
  return done;
}

} // namespace

namespace {

// The CUDA version a toolkit's include/cuda.h declares ("13.0"); empty when unreadable.
std::string
cuda_release_of(const stdfs::path& include_dir)
{
  std::ifstream in(include_dir / "cuda.h");
  std::string line;
  for (int n = 0; n < 2000 && std::getline(in, line); ++n) {
    if (starts_with(line, "#define CUDA_VERSION ")) {
      long value = std::strtol(line.c_str() + 21, nullptr, 10); // 11080: 11.8
      return value > 0 ? fmt::format("{}.{}", value / 1000, value % 1000 / 10) : "";
    }
  }
  return "";
}

} // namespace

std::optional<CudaToolchain>
system_cuda_toolchain()
{
  stdfs::path nvcc;
  std::error_code ec;
  if (std::string home = settings::get("cuda_home"); // $CUDA_HOME, $CUDA_PATH, config files
      !home.empty() && stdfs::exists(stdfs::path(home) / "bin" / "nvcc", ec)) {
    nvcc = stdfs::path(home) / "bin" / "nvcc";
  }
  if (nvcc.empty()) {
    nvcc = find_program("nvcc");
  }
  if (nvcc.empty()) {
    return std::nullopt;
  }
  CudaToolchain toolchain;
  toolchain.root = stdfs::weakly_canonical(nvcc, ec).parent_path().parent_path();
  toolchain.nvcc = nvcc;
  toolchain.include_dir = toolchain.root / "include";
  toolchain.lib_dir = stdfs::exists(toolchain.root / "lib64", ec) ? toolchain.root / "lib64" : toolchain.root / "lib";
  toolchain.release = cuda_release_of(toolchain.include_dir);
  return toolchain;
}

std::optional<CudaToolchain>
cuda_toolchain_of_major(int major)
{
  if (const project::CudaToolchainSpec* spec = project::cuda_toolchain_for_major(major)) {
    return stored_cuda_toolchain(*spec);
  }
  std::optional<CudaToolchain> system = system_cuda_toolchain();
  return system && project::cuda_major(system->release) == major ? system : std::nullopt;
}

stdfs::path
cuda_toolchain_store()
{
  return settings::get("cuda_toolchains");
}

CudaToolchain
cuda_toolchain_paths(const project::CudaToolchainSpec& spec)
{
  CudaToolchain toolchain;
  toolchain.root = cuda_toolchain_store() / ("cuda-" + spec.release);
  toolchain.nvcc = toolchain.root / spec.nvcc;
  toolchain.include_dir = toolchain.root / spec.include;
  toolchain.lib_dir = toolchain.root / spec.lib;
  toolchain.host_compiler = spec.host_compiler;
  toolchain.release = spec.release;
  return toolchain;
}

std::optional<CudaToolchain>
stored_cuda_toolchain(const project::CudaToolchainSpec& spec)
{
  CudaToolchain toolchain = cuda_toolchain_paths(spec);
  std::error_code ec;
  if (!stdfs::is_regular_file(toolchain.root / k_toolchain_stamp, ec)) {
    return std::nullopt;
  }
  return toolchain;
}

size_t
unpack_deb(const stdfs::path& deb, const project::ToolchainPackage& package, const stdfs::path& root)
{
  fs::TempDir temp("opkit-deb");
  stdfs::path data = temp.path() / "data.tar.xz";
  bool found = false;
  for_each_archive_entry(
    deb,
    [&](ArchiveEntry& entry) {
      if (entry.is_regular && entry.path == "data.tar.xz" && !found) {
        found = true;
        copy_deb_entry(entry, data, k_max_deb_data_bytes, deb);
      }
    },
    ArchiveKinds::ar);
  if (!found) {
    fail(ExitCode::usage, "{}: not a Debian package opkit reads: no data.tar.xz member", deb);
  }
  size_t files = 0;
  uint64_t bytes = 0;
  for_each_archive_entry(
    data,
    [&](ArchiveEntry& entry) {
      std::string path = deb_entry_path(entry.path);
      if (path.empty() || !deb_path_kept(path, package.keep)) {
        return;
      }
      // A link to a sibling (libcudart.so -> libcudart.so.12) is made as
      // stored: it cannot leave the folder. Other links, folders (made as
      // files need them) and devices are not.
      if (!entry.symlink.empty() && deb_sibling_name(entry.symlink)) {
        stdfs::path link = root / path;
        fs::create_dirs(link.parent_path());
        std::error_code ec;
        stdfs::create_symlink(entry.symlink, link, ec);
        if (ec) {
          fail(ExitCode::system, "{}: cannot create: {}", link, ec.message());
        }
        ++files;
        return;
      }
      if (!entry.is_regular) {
        return;
      }
      if (++files > k_max_deb_files) {
        fail(ExitCode::usage, "{}: more files than opkit unpacks ({})", deb, k_max_deb_files);
      }
      bytes += static_cast<uint64_t>(std::max<int64_t>(entry.size, 0));
      if (bytes > k_max_deb_unpacked_bytes) {
        fail(ExitCode::usage, "{}: unpacks to more than {} GiB", deb, k_max_deb_unpacked_bytes >> 30);
      }
      stdfs::path dest = root / path;
      fs::create_dirs(dest.parent_path());
      copy_deb_entry(entry, dest, k_max_deb_unpacked_bytes, deb);
    },
    ArchiveKinds::tar_xz);
  return files;
}

CudaToolchain
ensure_cuda_toolchain(const project::CudaToolchainSpec& spec, const std::string& needed_by)
{
  if (std::optional<CudaToolchain> stored = stored_cuda_toolchain(spec)) {
    return *stored;
  }
  stdfs::path store = cuda_toolchain_store();
  fs::create_dirs(store / "downloads");
  fs::FileLock lock(store / ("cuda-" + spec.release + ".lock"));
  if (std::optional<CudaToolchain> stored = stored_cuda_toolchain(spec)) { // made while this waited
    return *stored;
  }
  log_info("fetching CUDA {} for {} (configs/cuda/toolchains.yaml: {} packages from {}) ...", spec.release, needed_by,
           spec.packages.size(), spec.archive);
  std::vector<stdfs::path> debs;
  for (const project::ToolchainPackage& package : spec.packages) {
    debs.push_back(download_deb(spec, package, store / "downloads"));
  }
  CudaToolchain toolchain = cuda_toolchain_paths(spec);
  fs::StagingDir staging(store);
  staging.fill(toolchain.root.string() + "/", [&]() {
    for (size_t i = 0; i < debs.size(); ++i) {
      log_info("unpacking {} ...", debs[i].filename().string());
      unpack_deb(debs[i], spec.packages[i], staging.path());
    }
    stdfs::path nvcc = staging.path() / spec.nvcc;
    std::error_code ec;
    if (!stdfs::is_regular_file(nvcc, ec)) {
      fail(ExitCode::failed, "CUDA {}: the packages hold no {}", spec.release, spec.nvcc);
    }
    stdfs::remove(nvcc.parent_path() / "nvcc.profile", ec); // Debian's links to /etc
    fs::write_file_atomic(nvcc.parent_path() / "nvcc.profile", spec.profile);
    fs::write_file_atomic(staging.path() / k_toolchain_stamp, fmt::format("cuda {}\n", spec.release));
  });
  staging.commit(toolchain.root);
  for (const stdfs::path& deb : debs) { // unpacked: the packages themselves are not deb_path_kept
    std::error_code ec;
    stdfs::remove(deb, ec);
  }
  log_info("CUDA {}: in {}", spec.release, toolchain.root);
  return toolchain;
}

} // namespace opkit::sdk
