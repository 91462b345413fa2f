#include "opkit/sdk/store.hpp"

#include <gtest/gtest.h>

using namespace opkit::sdk;

TEST(SdkStore, FetchCommandForAMissingSdk)
{
  EXPECT_EQ(fetch_command("1.12.0"), "opkit sdk fetch tensorflow==1.12.0");
  EXPECT_EQ(fetch_command("2.10"), "opkit sdk fetch tensorflow==2.10"); // the prefix fetch accepts
  EXPECT_EQ(fetch_command("tensorflow-1.12.0"), "opkit sdk fetch tensorflow==1.12.0");
  EXPECT_EQ(fetch_command("tensorflow-2.10.1-cuda"), "opkit sdk fetch tensorflow==2.10.1 --variant gpu");
  EXPECT_EQ(fetch_command("tensorflow-nonsense"), "");
  EXPECT_EQ(fetch_command("1.2.3.4"), "");
}

TEST(SdkStore, SdkIdsAreValidatedBeforeTheyBecomePaths)
{
  using opkit::sdk::is_valid_sdk_id;
  EXPECT_TRUE(is_valid_sdk_id("tensorflow-2.10.1"));
  EXPECT_TRUE(is_valid_sdk_id("tensorflow-2.11.0-rc1-cuda"));
  for (const char* bad : {"", "tensorflow-", "tensorflow-1.12.0-rc0/../../outside", "tensorflow-1.12..0",
                          "tensorflow-1 12", "../tensorflow-1.12.0", "pytorch-2.0", "tensorflow-1.12\n"}) {
    EXPECT_FALSE(is_valid_sdk_id(bad)) << bad;
  }
  EXPECT_FALSE(is_valid_sdk_id("tensorflow-" + std::string(97, '1')));
}

TEST(SdkStore, TorchSdkIdsAreValidToo)
{
  using opkit::sdk::is_valid_sdk_id;
  EXPECT_TRUE(is_valid_sdk_id("torch-2.5.1"));
  EXPECT_TRUE(is_valid_sdk_id("torch-2.8.0-cuda"));
  for (const char* bad : {"torch-", "torch-2.5.1/../x", "torch-2..5", "jax-0.4.30", "torch"}) {
    EXPECT_FALSE(is_valid_sdk_id(bad)) << bad;
  }
  EXPECT_FALSE(is_valid_sdk_id("torch-" + std::string(97, '1')));
}

TEST(SdkStore, AnSdkIdSaysItsFrameworkVersionAndWhetherItIsACudaBuild)
{
  std::optional<opkit::sdk::SdkIdParts> torch = opkit::sdk::parse_sdk_id("torch-2.8.0-cuda");
  ASSERT_TRUE(torch);
  EXPECT_EQ(torch->framework, "torch");
  EXPECT_EQ(torch->version, "2.8.0");
  EXPECT_TRUE(torch->cuda);
  std::optional<opkit::sdk::SdkIdParts> tf = opkit::sdk::parse_sdk_id("tensorflow-1.12.0");
  ASSERT_TRUE(tf);
  EXPECT_EQ(tf->framework, "tensorflow");
  EXPECT_EQ(tf->version, "1.12.0");
  EXPECT_FALSE(tf->cuda);
  EXPECT_FALSE(opkit::sdk::parse_sdk_id("2.10.1"));
  EXPECT_FALSE(opkit::sdk::parse_sdk_id("jax-0.4.30"));
  EXPECT_EQ(opkit::sdk::fetch_command("torch-2.8.0-cuda", "tensorflow"), "opkit sdk fetch torch==2.8.0");
}
