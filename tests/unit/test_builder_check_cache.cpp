#include "opkit/builder/check_cache.hpp"
#include "opkit/util/fs.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace opkit;

namespace {

sdk::Sdk
sdk_in(const std::filesystem::path& root)
{
  sdk::Sdk sdk;
  sdk.id = "tensorflow-2.10.1";
  sdk.root = root;
  sdk.framework_library = "libtensorflow_framework.so.2";
  return sdk;
}

check::CheckReport
failing_report()
{
  check::CheckReport report;
  report.library = "/p/build/tf-2.10.1/libop.so";
  report.target = "tensorflow 2.10.1 on tensorflow-2.10";
  report.loads = false;
  report.needed = {"libc.so.6"};
  report.undefined = 12;
  report.findings.push_back({"version-too-new",
                             true,
                             "needs GLIBCXX_3.4.30",
                             "d",
                             "r",
                             {{"_ZNSt6vectorIiSaIiEE", "std::vector<int>", "GLIBCXX_3.4.30", {}}}});
  return report;
}

} // namespace

TEST(CheckCache, ReusesTheVerdictWhileNothingChanged)
{
  fs::TempDir tmp;
  fs::write_file_atomic(tmp.path() / "libop.so", "v1");
  sdk::Sdk sdk = sdk_in(tmp.path());
  std::filesystem::path file = tmp.path() / "opkit-check.json";
  builder::CheckCacheKey key = builder::check_cache_key(tmp.path() / "libop.so", sdk, "", "");
  EXPECT_FALSE(builder::load_cached_check(file, key)) << "nothing stored yet";
  builder::store_check(file, key, failing_report());
  std::optional<check::CheckReport> again = builder::load_cached_check(file, key);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->loads);
  EXPECT_EQ(again->undefined, 12U);
  ASSERT_EQ(again->findings.size(), 1U);
  EXPECT_EQ(again->findings[0].symbols[0].version, "GLIBCXX_3.4.30");
}

TEST(CheckCache, KeyChangesWithTheLibraryAndTheTarget)
{
  fs::TempDir tmp;
  std::filesystem::path lib = tmp.path() / "libop.so";
  fs::write_file_atomic(lib, "v1");
  sdk::Sdk sdk = sdk_in(tmp.path());
  std::string key = builder::check_cache_key(lib, sdk, "", "").value;
  EXPECT_NE(key, builder::check_cache_key(lib, sdk, "manylinux2014", "").value);
  EXPECT_NE(key, builder::check_cache_key(lib, sdk_in(tmp.path() / "other"), "", "").value);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  fs::write_file_atomic(lib, "v2"); // relinked
  EXPECT_NE(key, builder::check_cache_key(lib, sdk, "", "").value);
}

TEST(CheckCache, DamagedFileMeansCheckAgain)
{
  fs::TempDir tmp;
  std::filesystem::path file = tmp.path() / "opkit-check.json";
  builder::CheckCacheKey key{"k"};
  for (const char* text : {"", "{", "[]", "{\"schema\": \"opkit.check-cache/1\", \"key\": \"k\", \"report\": 3}"}) {
    fs::write_file_atomic(file, text);
    EXPECT_FALSE(builder::load_cached_check(file, key)) << text;
  }
}
