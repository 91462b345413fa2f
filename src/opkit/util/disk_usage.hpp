#pragma once

// What a file or folder costs on disk, measured as `du -s` measures it: the
// blocks allocated (st_blocks x 512), not the apparent bytes (`du -sb`), of
// the path itself and everything below it, links not followed, each inode
// counted once (hard links), mount points crossed. The store report
// (sdk/store_report), `sdk list` and `sdk info` all speak this measure.
#include <cstdint>
#include <filesystem>
#include <string>

namespace opkit::fs {

struct DiskUsage
{
  uint64_t bytes = 0; // allocated: what `du -s --block-size=1 PATH` prints
  uint64_t files = 0; // regular files (each inode once)
};

// A path that is not there costs nothing; a file removed during the walk
// counts what had been read of it.
DiskUsage
disk_usage(const std::filesystem::path& path);

// "0 B", "512 B", "4.1 kB", "680.3 MB", "1.2 GB": decimal units (as opkit's
// other sizes, pip's and ccache's), one decimal from kB up.
std::string
human_bytes(uint64_t bytes);

} // namespace opkit::fs
