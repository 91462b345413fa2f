#include "opkit/sdk/import_progress.hpp"

#include <gtest/gtest.h>

namespace opkit::sdk {

TEST(ImportProgress, DescribesPercentOfTheWheelsBytes)
{
  EXPECT_EQ(ImportProgress::describe(7000, 18870, 412000000, 1103500000, 120200000),
            "37% (7000 of 18870 entries, 412.0 of 1103.5 MB), kept 120.2 MB");
}

TEST(ImportProgress, FallsBackToEntriesWithoutBytes)
{
  EXPECT_EQ(ImportProgress::describe(5, 10, 0, 0, 0), "50% (5 of 10 entries, 0.0 of 0.0 MB), kept 0.0 MB");
}

TEST(ImportProgress, WithoutTotalsCountsOnly)
{
  EXPECT_EQ(ImportProgress::describe(42, 0, 0, 0, 3000000), "42 entries, kept 3.0 MB");
}

TEST(ImportProgress, NeverPastOneHundred)
{
  EXPECT_EQ(ImportProgress::describe(11, 10, 2000, 1000, 0).substr(0, 5), "100% ");
}

} // namespace opkit::sdk
