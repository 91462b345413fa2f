#include "opkit/util/lazy_library.hpp"

#include "opkit/util/error.hpp"

#include <mutex>
#include <string>

#include <dlfcn.h>

namespace opkit {

void*
LazyLibrary::address(const char* name) const
{
  // One handle per soname for the process; dlopen counts references anyway,
  // the mutex only keeps dlerror's message with the call that failed.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  void* handle = ::dlopen(m_soname, RTLD_NOW | RTLD_LOCAL);
  void* found = handle != nullptr ? ::dlsym(handle, name) : nullptr;
  if (found == nullptr) {
    const char* cause = ::dlerror();
    throw Error(ExitCode::missing, fmt::format("{}: cannot load {}: {}", m_soname, name, cause ? cause : "not found"),
                fmt::format("install Debian's {}", m_package));
  }
  return found;
}

} // namespace opkit
