#include "opkit/builder/portable.hpp"
#include "opkit/elf/elf_archive.hpp"
#include "opkit/check/profile.hpp"
#include "opkit/project/runtime_policy.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace opkit;

namespace {

bool
contains(const std::vector<std::string>& list, const std::string& value)
{
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string
libstdcxx_archive()
{
  return trim(run_process({"g++", "-print-file-name=libstdc++.a"}).out);
}

} // namespace

TEST(BuildPortable, CeilingsComeFromPoliciesAndCaptures)
{
  auto policy = builder::cxx_ceiling(check::profile_from_policy(project::load_runtime_policy("tensorflow-2.10")));
  ASSERT_TRUE(policy);
  EXPECT_EQ(policy->glibcxx, "3.4.19");
  EXPECT_EQ(policy->cxxabi, "1.3.7");
  check::Profile captured;
  check::ProfileLibrary libstdcxx;
  libstdcxx.soname = "libstdc++.so.6";
  libstdcxx.versions = {"GLIBCXX_3.4",   "GLIBCXX_3.4.9", "GLIBCXX_3.4.28",
                        "GLIBCXX_3.4.3", "CXXABI_1.3.12", "CXXABI_1.3"};
  captured.libraries.push_back(libstdcxx);
  auto from_capture = builder::cxx_ceiling(captured);
  ASSERT_TRUE(from_capture);
  EXPECT_EQ(from_capture->glibcxx, "3.4.28");
  EXPECT_EQ(from_capture->cxxabi, "1.3.12");
  // This machine: the plain link.
  EXPECT_FALSE(builder::cxx_ceiling(check::host_profile()));
}

TEST(BuildPortable, ArchiveMembersAndTheirSymbols)
{
  std::vector<elf::ArchiveMember> members = elf::read_archive_members(libstdcxx_archive());
  auto functexcept =
    std::find_if(members.begin(), members.end(), [](const elf::ArchiveMember& m) { return m.name == "functexcept.o"; });
  ASSERT_NE(functexcept, members.end());
  EXPECT_TRUE(contains(functexcept->defines, "_ZSt28__throw_bad_array_new_lengthv"));
  EXPECT_FALSE(functexcept->needs.empty());
  EXPECT_THROW(elf::read_archive_members("/proc/self/exe"), Error);
}

TEST(BuildPortable, TheMembersAboveACeilingAreKeptOnce)
{
  builder::CxxCeiling ceiling{"3.4.28", "1.3.12"};
  builder::NonsharedLibstdcxx first = builder::ensure_nonshared_libstdcxx("g++", ceiling);
  ASSERT_FALSE(first.archive.empty());
  EXPECT_TRUE(contains(first.members, "functexcept.o"));
  EXPECT_TRUE(contains(first.symbols, "_ZSt28__throw_bad_array_new_lengthv")); // GLIBCXX_3.4.29
  EXPECT_FALSE(contains(first.symbols, "_ZSt17__throw_bad_allocv"));           // GLIBCXX_3.4
  // The archive defines the newer symbol, while an older one of the same member is local.
  std::vector<elf::ArchiveMember> kept = elf::read_archive_members(first.archive);
  auto functexcept =
    std::find_if(kept.begin(), kept.end(), [](const elf::ArchiveMember& m) { return m.name == "functexcept.o"; });
  ASSERT_NE(functexcept, kept.end());
  EXPECT_TRUE(contains(functexcept->defines, "_ZSt28__throw_bad_array_new_lengthv"));
  EXPECT_FALSE(contains(functexcept->defines, "_ZSt17__throw_bad_allocv"));
  builder::NonsharedLibstdcxx again = builder::ensure_nonshared_libstdcxx("g++", ceiling);
  EXPECT_EQ(again.archive, first.archive);
  EXPECT_EQ(again.members, first.members);
  // A ceiling at this compiler's own libstdc++: nothing to link in.
  EXPECT_TRUE(builder::ensure_nonshared_libstdcxx("g++", {"3.4.99", "1.3.99"}).archive.empty());
}

TEST(BuildPortable, GlibcSymbolsAreBoundToTheVersionsTheTargetHas)
{
  builder::SymbolBindings bindings =
    builder::symbol_bindings(check::profile_from_policy(project::load_runtime_policy("tensorflow-2.10")));
  EXPECT_EQ(bindings.at("pthread_once"), "GLIBC_2.2.5");
  std::string header = builder::symver_header(bindings);
  // glibc 2.34 moved pthread_once into libc (GLIBC_2.34); CentOS 7 has GLIBC_2.2.5's.
  EXPECT_NE(header.find("__asm__(\".symver pthread_once,pthread_once@GLIBC_2.2.5\");"), std::string::npos);
  // expf@@GLIBC_2.27 has an older version; memcpy@@GLIBC_2.14 is within 2.17 already.
  EXPECT_NE(header.find("__asm__(\".symver expf,expf@GLIBC_2.2.5\");"), std::string::npos);
  EXPECT_EQ(header.find(".symver memcpy,"), std::string::npos);
  // This machine has every default version: nothing to bind.
  EXPECT_TRUE(builder::symbol_bindings(check::host_profile()).empty());
  EXPECT_EQ(builder::symver_header({}), "");
}

TEST(BuildPortable, DataTheTargetHasStaysTheTargetsOneCopy)
{
  // Ubuntu 16.04's ceiling: the COW string's members above GLIBCXX_3.4.21 are
  // linked in, but its empty representation (a GNU unique object the target's
  // libstdc++ has) must be the target's, or strings freed there crash.
  builder::NonsharedLibstdcxx nonshared = builder::ensure_nonshared_libstdcxx("g++", {"3.4.21", "1.3.9"});
  ASSERT_TRUE(contains(nonshared.members, "cow-string-inst.o"));
  std::vector<elf::ArchiveMember> kept = elf::read_archive_members(nonshared.archive);
  auto cow =
    std::find_if(kept.begin(), kept.end(), [](const elf::ArchiveMember& m) { return m.name == "cow-string-inst.o"; });
  ASSERT_NE(cow, kept.end());
  EXPECT_TRUE(contains(cow->needs, "_ZNSs4_Rep20_S_empty_rep_storageE"));
  EXPECT_FALSE(contains(cow->defines, "_ZNSs4_Rep20_S_empty_rep_storageE"));
  EXPECT_FALSE(contains(cow->data, "_ZNSs4_Rep20_S_empty_rep_storageE"));
}

TEST(BuildPortable, PrebuiltStaticLibrariesAreBoundToTheTargetsVersions)
{
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "opkit-unit-pin";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "once.c") << "#include <pthread.h>\nstatic pthread_once_t o = PTHREAD_ONCE_INIT;\n"
                                   "static void f(void) {}\nint once(void) { return pthread_once(&o, f); }\n";
  ASSERT_EQ(run_process({"gcc", "-c", "-fPIC", (dir / "once.c").string(), "-o", (dir / "once.o").string()}).exit_code,
            0);
  ASSERT_EQ(run_process({"ar", "rcs", (dir / "libonce.a").string(), (dir / "once.o").string()}).exit_code, 0);
  std::filesystem::path pinned = builder::pin_static_libraries({dir / "libonce.a"}, {{"pthread_once", "GLIBC_2.2.5"}});
  std::vector<elf::ArchiveMember> members = elf::read_archive_members(pinned / "libonce.a");
  ASSERT_EQ(members.size(), 1U);
  EXPECT_TRUE(contains(members[0].needs, "pthread_once@GLIBC_2.2.5"));
  EXPECT_FALSE(contains(members[0].needs, "pthread_once"));
  EXPECT_EQ(builder::pin_static_libraries({dir / "libonce.a"}, {{"pthread_once", "GLIBC_2.2.5"}}), pinned);
  std::filesystem::remove_all(dir);
}

TEST(BuildPortable, TheFunctionsUsingASymbolAreNamed)
{
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "opkit-unit-users";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "widest.c") << "#define _GNU_SOURCE\n#include <math.h>\n"
                                     "double widest(double a, double b) { return fmaxf64(a, b); }\n"
                                     "double same(double a) { return a; }\n"
                                     "double twice(double a) { return fmaxf64(a, a) + fmaxf64(a, 0); }\n";
  ASSERT_EQ(
    run_process({"gcc", "-c", "-fPIC", "-fno-builtin", (dir / "widest.c").string(), "-o", (dir / "widest.o").string()})
      .exit_code,
    0);
  auto users = elf::functions_referencing(dir / "widest.o", {"fmaxf64", "sqrt"});
  ASSERT_EQ(users.size(), 1U);
  EXPECT_EQ(users["fmaxf64"], (std::vector<std::string>{"widest", "twice"}));
  EXPECT_TRUE(elf::functions_referencing(dir / "widest.c", {"fmaxf64"}).empty()); // not an object
  std::filesystem::remove_all(dir);
}
