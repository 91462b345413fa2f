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
