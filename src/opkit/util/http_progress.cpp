#include "opkit/util/http_progress.hpp"

namespace opkit::http_detail {

ProgressBar::ProgressBar(bool enabled, std::string what)
{
  if (enabled) {
    m_step = std::make_unique<progress::Step>(std::move(what));
  }
}

void
ProgressBar::restart(std::int64_t base)
{
  m_base = base;
  m_shown = -1;
  if (m_step) {
    m_step->restart();
  }
}

void
ProgressBar::draw(std::int64_t now, std::int64_t total)
{
  if (!m_step || total <= 0 || now == m_shown) {
    return; // libcurl calls often, also while it waits for the answer
  }
  m_shown = now;
  m_step->bytes(now, total, m_base);
}

} // namespace opkit::http_detail
