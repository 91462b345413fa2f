#pragma once

// Open files closed by scope: a descriptor (UniqueFd) and a stdio stream
// (UniqueFile). Every path that throws past an open file, a damaged archive
// entry included, closes it; a process that imports many wheels (the fuzzers,
// a long `opkit` run) does not run out of descriptors.

#include <cstdio>
#include <memory>

#include <unistd.h>

namespace opkit {

class UniqueFd
{
public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) noexcept
    : m_fd(fd)
  {
  }
  UniqueFd(UniqueFd&& other) noexcept
    : m_fd(other.release())
  {
  }
  UniqueFd& operator=(UniqueFd&& other) noexcept
  {
    reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return m_fd; }
  bool valid() const noexcept { return m_fd >= 0; }
  int release() noexcept
  {
    int fd = m_fd;
    m_fd = -1;
    return fd;
  }
  void reset(int fd = -1) noexcept
  {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = fd;
  }

private:
  int m_fd = -1;
};

struct FileCloser
{
  void operator()(std::FILE* file) const noexcept { std::fclose(file); }
};
using UniqueFile = std::unique_ptr<std::FILE, FileCloser>;

} // namespace opkit
