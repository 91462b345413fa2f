#pragma once

// The progress of an SDK import, a step of the status line (util/progress):
// redrawn in place on a terminal, a line at each quarter otherwise, nothing with -q.
#include "opkit/util/progress.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace opkit::sdk {

class ImportProgress
{
public:
  // The wheel's entries and bytes (uncompressed) from its central directory;
  // without one (a folder, a damaged archive the import refuses later) only
  // counts are shown.
  explicit ImportProgress(const std::filesystem::path& source);
  ~ImportProgress();
  ImportProgress(const ImportProgress&) = delete;
  ImportProgress& operator=(const ImportProgress&) = delete;

  // One entry read (`bytes` uncompressed); `kept_bytes` is what the SDK keeps so far.
  void entry(uint64_t bytes, uint64_t kept_bytes);
  // The step ends (leaves the status line).
  void finish();

  // "37% (7000 of 18870 entries, 412.0 of 1103.5 MB), kept 120.2 MB"
  static std::string describe(uint64_t entries, uint64_t total_entries, uint64_t bytes, uint64_t total_bytes,
                              uint64_t kept_bytes);

private:
  bool m_enabled = false;
  bool m_redraw = false; // a terminal: no quarter lines
  std::unique_ptr<progress::Step> m_step;
  uint64_t m_total_entries = 0;
  uint64_t m_total_bytes = 0;
  uint64_t m_entries = 0;
  uint64_t m_bytes = 0;
  int m_next_quarter = 1;
};

} // namespace opkit::sdk
