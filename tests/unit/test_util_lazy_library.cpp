#include "opkit/util/error.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/lazy_library.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace opkit;

TEST(LazyLibrary, FindsAFunctionOnFirstUse)
{
  LazyLibrary libc("libc.so.6", "libc6");
  auto length = libc.function<size_t (*)(const char*)>("strlen");
  EXPECT_EQ(length("opkit"), 5U);
}

TEST(LazyLibrary, AMissingLibraryOrFunctionIsAMissingPrerequisite)
{
  LazyLibrary absent("libopkit-absent.so.9", "opkit-absent9");
  try {
    absent.function<void (*)()>("f");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::missing);
    EXPECT_EQ(std::string(e.what()).rfind("libopkit-absent.so.9: cannot load f: ", 0), 0U) << e.what();
    EXPECT_EQ(e.hint(), "install Debian's opkit-absent9");
  }
  LazyLibrary libc("libc.so.6", "libc6");
  EXPECT_THROW(libc.function<void (*)()>("opkit_no_such_function"), Error);
}

TEST(LazyLibrary, TheForwardedLibrariesAnswer)
{
  // util/hash.cpp calls libcrypto through util/lazy_crypto.cpp.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
