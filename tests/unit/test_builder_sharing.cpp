#include "opkit/builder/sharing.hpp"
#include "opkit/util/error.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opkit;

namespace {

bool
has(const std::vector<std::string>& args, const std::string& arg)
{
  return std::find(args.begin(), args.end(), arg) != args.end();
}

project::CompileSharing
settings(const std::string& cache, const std::string& remote = "", std::vector<std::string> hosts = {})
{
  project::CompileSharing s;
  s.cache = cache;
  s.cache_remote = remote;
  s.distcc_hosts = std::move(hosts);
  return s;
}

} // namespace

TEST(Sharing, AutoUsesCcacheWhenInstalledAndKeepsThePch)
{
  builder::Sharing on = builder::plan_sharing(settings("auto"), "/usr/bin/ccache", "", "/work");
  EXPECT_TRUE(on.ccache);
  EXPECT_TRUE(on.pch) << "a local cache and the PCH combine";
  EXPECT_FALSE(on.relative_sdk);
  EXPECT_EQ(on.launcher.back(), "/usr/bin/ccache");
  EXPECT_TRUE(has(on.launcher, "CCACHE_BASEDIR=/work"));
  EXPECT_TRUE(has(on.launcher, "CCACHE_NOHASHDIR=1"));
  EXPECT_TRUE(has(on.launcher, "CCACHE_SLOPPINESS=pch_defines,time_macros"));

  builder::Sharing off = builder::plan_sharing(settings("auto"), "", "", "/work");
  EXPECT_FALSE(off.ccache);
  EXPECT_TRUE(off.launcher.empty());
  EXPECT_TRUE(builder::plan_sharing(settings("off"), "/usr/bin/ccache", "", "/w").launcher.empty());
}

TEST(Sharing, RemoteStorageMakesCommandsPortableAndDropsThePch)
{
  builder::Sharing remote =
    builder::plan_sharing(settings("auto", "redis://127.0.0.1:6379"), "/usr/bin/ccache", "", "/w");
  EXPECT_TRUE(remote.ccache);
  EXPECT_FALSE(remote.pch) << "a PCH's bytes differ per machine: no remote hits";
  EXPECT_TRUE(remote.relative_sdk);
  // The URL (it may hold a password) goes to ninja's environment, never into build.ninja.
  EXPECT_EQ(remote.environment.at("CCACHE_REMOTE_STORAGE"), "redis://127.0.0.1:6379");
  for (const std::string& word : remote.launcher) {
    EXPECT_EQ(word.find("REMOTE"), std::string::npos) << word;
  }
  std::vector<std::string> target = builder::target_launcher(remote, "/w/build/tf-2.10.1/ccache-stats.log");
  EXPECT_EQ(target.back(), "/usr/bin/ccache");
  EXPECT_TRUE(has(target, "CCACHE_STATSLOG=/w/build/tf-2.10.1/ccache-stats.log"));
}

TEST(Sharing, DistccHelpersAddSlotsAndGoThroughCcache)
{
  builder::Sharing both =
    builder::plan_sharing(settings("auto", "", {"10.0.0.2/3", "10.0.0.3"}), "/usr/bin/ccache", "/usr/bin/distcc", "/w");
  EXPECT_TRUE(both.distcc);
  EXPECT_EQ(both.remote_slots, 7);
  EXPECT_FALSE(both.pch);
  EXPECT_TRUE(has(both.launcher, "DISTCC_HOSTS=10.0.0.2/3 10.0.0.3"));
  EXPECT_TRUE(has(both.launcher, "CCACHE_PREFIX=/usr/bin/distcc"));
  builder::Sharing alone =
    builder::plan_sharing(settings("off", "", {"h/2"}), "/usr/bin/ccache", "/usr/bin/distcc", "/w");
  EXPECT_EQ(alone.launcher.back(), "/usr/bin/distcc");
}

TEST(Sharing, MissingProgramsAreNamed)
{
  try {
    builder::plan_sharing(settings("on"), "", "", "/w");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::missing);
    EXPECT_NE(std::string(e.what()).find("ccache: not found"), std::string::npos);
  }
  EXPECT_THROW(builder::plan_sharing(settings("off", "", {"h/2"}), "", "", "/w"), Error);
}

TEST(Sharing, StatsLogCountsEachCompileOnce)
{
  builder::CacheStats stats =
    builder::parse_ccache_stats_log("# a.cc\ncache_miss\ndirect_cache_miss\nlocal_storage_miss\n"
                                    "# b.cc\ndirect_cache_hit\nlocal_storage_hit\n"
                                    "# c.cc\npreprocessed_cache_hit\nremote_storage_hit\n"
                                    "# d.cc\ncould_not_use_precompiled_header\n");
  EXPECT_EQ(stats.hits, 2);
  EXPECT_EQ(stats.remote_hits, 1);
  EXPECT_EQ(stats.misses, 1);
  EXPECT_EQ(builder::parse_ccache_stats_log("").hits, 0);
}
