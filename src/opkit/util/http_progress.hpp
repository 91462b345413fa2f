#pragma once

// The progress of util/http*'s transfers, a step of the one status line
// (util/progress): "downloading x.whl: 42% 90.1 of 214.5 MB, 12.0 MB/s, 0:10 left".
// No libcurl here.

#include "opkit/util/progress.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace opkit::http_detail {

class ProgressBar
{
public:
  // `what` names the transfer ("downloading x.whl"); nothing is shown when not `enabled`.
  ProgressBar(bool enabled, std::string what);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // An upload's bytes sent, of `total`.
  void sent(std::int64_t now, std::int64_t total) { draw(now, total); }

  // A download's bytes received in this answer, of this answer's `total`: a
  // resumed download adds the bytes it already had (libcurl counts only this answer's).
  void received(std::int64_t now, std::int64_t total) { draw(m_base + now, total > 0 ? m_base + total : 0); }

  // A new answer starts, `base` bytes already there.
  void restart(std::int64_t base = 0);

  // The bytes the file already holds when this answer's body starts.
  void set_base(std::int64_t base) { m_base = base; }

private:
  void draw(std::int64_t now, std::int64_t total);

  std::unique_ptr<progress::Step> m_step; // null when not shown
  std::int64_t m_shown = -1;
  std::int64_t m_base = 0;
};

} // namespace opkit::http_detail
