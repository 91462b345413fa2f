#pragma once

namespace opkit {

// A shared library opened on first use (dlopen) instead of at start-up.
// libcurl, libarchive, libcrypto, libxml2 and libZydis are loaded this way:
// with their own dependencies they are 40 of the 47 libraries opkit would
// otherwise map and relocate on every run, while most commands (opkit check)
// call none of them. util/lazy_curl.cpp, lazy_archive.cpp, lazy_crypto.cpp,
// lazy_xml.cpp and cpu/lazy_zydis.cpp define the functions opkit calls, each
// forwarding to the library's own.
class LazyLibrary
{
public:
  // `soname` as the linker recorded it (CMake reads it from the library
  // opkit was built against); `package`, the Debian package that installs it.
  constexpr LazyLibrary(const char* soname, const char* package)
    : m_soname(soname)
    , m_package(package)
  {
  }

  // The function `name`, opening the library first. Error(missing) naming the
  // library and its package when it cannot be opened or lacks the function.
  template<typename Function>
  Function function(const char* name) const
  {
    return reinterpret_cast<Function>(address(name));
  }

private:
  void* address(const char* name) const;

  const char* m_soname;
  const char* m_package;
};

} // namespace opkit

// Inside a forwarding definition: `real` is the library's own function of the same name.
#define OPKIT_LAZY_REAL(library, name) static const auto real = (library).function<decltype(&::name)>(#name)

// Defines `ret name params` (the library's declaration) as a call of the
// library's own `name` with `args`.
#define OPKIT_LAZY_FORWARD(library, ret, name, params, args)                                                           \
  ret name params                                                                                                      \
  {                                                                                                                    \
    OPKIT_LAZY_REAL(library, name);                                                                                    \
    return real args;                                                                                                  \
  }
