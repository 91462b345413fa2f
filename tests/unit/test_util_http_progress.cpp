#include "opkit/util/http_progress.hpp"

#include <gtest/gtest.h>

using namespace opkit::http_detail;

TEST(HttpProgress, Sizes)
{
  EXPECT_EQ(format_size(512), "512 B");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(214.5 * 1024 * 1024), "214.5 MiB");
}

TEST(HttpProgress, TimeLeft)
{
  EXPECT_EQ(format_eta(0), "0:00");
  EXPECT_EQ(format_eta(6.2), "0:07"); // rounded up: never "0:00" while bytes are left
  EXPECT_EQ(format_eta(760), "12:40");
  EXPECT_EQ(format_eta(3723), "1:02:03");
  EXPECT_EQ(format_eta(-1), "--:--");
  EXPECT_EQ(format_eta(1e9), "--:--");
}

TEST(HttpProgress, LineWithSpeedAndEta)
{
  const std::int64_t mib = 1024 * 1024;
  // 10 MiB of 100 in 2 s: 5 MiB/s, 90 MiB left: 18 s.
  EXPECT_EQ(progress_line(10 * mib, 100 * mib, 0, 2.0),
            " 10% [###---------------------------] 10.0 MiB / 100.0 MiB  5.0 MiB/s  ETA 0:18");
  // Resumed at 50 MiB: only this answer's 10 MiB count for the speed.
  EXPECT_EQ(progress_line(60 * mib, 100 * mib, 50 * mib, 2.0),
            " 60% [##################------------] 60.0 MiB / 100.0 MiB  5.0 MiB/s  ETA 0:08");
  // Nothing moved yet: no speed, no ETA.
  EXPECT_EQ(progress_line(0, 100 * mib, 0, 0.0),
            "  0% [------------------------------] 0 B / 100.0 MiB  0 B/s  ETA --:--");
}
