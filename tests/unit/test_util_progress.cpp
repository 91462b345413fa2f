#include "opkit/util/progress.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include <cstdio>
#include <string>

using namespace opkit::progress;

TEST(Progress, OneUnitForSizes)
{
  EXPECT_EQ(format_mb(0), "0.0 MB");
  EXPECT_EQ(format_mb(512), "0.0 MB");
  EXPECT_EQ(format_mb(214.5e6), "214.5 MB");
}

TEST(Progress, Times)
{
  EXPECT_EQ(format_time(0), "0:00");
  EXPECT_EQ(format_time(6.2), "0:07"); // rounded up: never "0:00" while bytes are left
  EXPECT_EQ(format_time(760), "12:40");
  EXPECT_EQ(format_time(3723), "1:02:03");
  EXPECT_EQ(format_time(-1), "--:--");
  EXPECT_EQ(format_time(1e9), "--:--");
}

TEST(Progress, BytesWithSpeedAndTimeLeft)
{
  // 10 MB of 100 in 2 s: 5 MB/s, 90 MB left: 18 s.
  EXPECT_EQ(bytes_text(10'000'000, 100'000'000, 0, 2.0), "10% of 100.0 MB, 5.0 MB/s, 0:18 left");
  // Resumed at 50 MB: only this attempt's 10 MB count for the speed.
  EXPECT_EQ(bytes_text(60'000'000, 100'000'000, 50'000'000, 2.0), "60% of 100.0 MB, 5.0 MB/s, 0:08 left");
  // Nothing moved yet: no speed, no time left.
  EXPECT_EQ(bytes_text(0, 100'000'000, 0, 0.0), "0% of 100.0 MB, 0.0 MB/s, --:-- left");
  // No total: what came, and how fast.
  EXPECT_EQ(bytes_text(41'200'000, 0, 0, 4.0), "41.2 MB, 10.3 MB/s");
}

TEST(Progress, AWheelIsNamedByProjectAndVersion)
{
  EXPECT_EQ(short_file_name("tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
            "tensorflow_cpu-2.10.1");
  EXPECT_EQ(short_file_name("pkg.tar.gz"), "pkg.tar.gz");
  EXPECT_EQ(short_file_name("odd.whl"), "odd.whl");
}

TEST(Progress, StatusNamesEveryStepWithItsTime)
{
  EXPECT_EQ(
    status_text({{"precompiling TensorFlow's headers for tf-1.12.0", "", 12.0},
                 {"building", "[3/9] tf-2.10.1: compiling x.cc", 1.5}},
                200),
    "precompiling TensorFlow's headers for tf-1.12.0 (0:12) | building (0:01): [3/9] tf-2.10.1: compiling x.cc");
  // Cut to the terminal's width (less one: a full line would wrap), UTF-8 kept whole.
  EXPECT_EQ(status_text({{"importing ä.whl", "", 0}}, 12), "importing ä");
  EXPECT_EQ(status_text({{"importing x", "", 0}}, 100), "importing x (0:00)");
}

namespace {

std::string
captured(std::FILE* file)
{
  std::fflush(file);
  std::rewind(file);
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) {
    text.append(buffer, n);
  }
  return text;
}

struct Captured
{
  explicit Captured(const Style& style)
    : file(std::tmpfile())
  {
    set_style_for_testing(&style);
    set_stream_for_testing(file);
  }
  ~Captured()
  {
    set_stream_for_testing(nullptr);
    set_style_for_testing(nullptr);
    std::fclose(file);
  }
  std::FILE* file;
};

} // namespace

TEST(Progress, OnATerminalTheLineIsRedrawnAndLogLinesGoAboveIt)
{
  Style style;
  style.redraw = true;
  style.width = 100;
  Captured out(style);
  {
    Step step("creating a Python 3.6 environment with tensorflow==1.12.0");
    step.detail("Collecting tensorflow==1.12.0");
    write("a log line");
  }
  std::string text = captured(out.file);
  EXPECT_NE(text.find("\r\x1b[Kcreating a Python 3.6 environment with tensorflow==1.12.0"), std::string::npos) << text;
  // The log line clears the status line, then it is drawn again below.
  size_t line = text.find("\r\x1b[Ka log line\n");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.find("\r\x1b[Kcreating", line), std::string::npos) << text;
  // The step's end clears it.
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << text;
}

TEST(Progress, WithoutATerminalNoEscapesOnlyLines)
{
  Style style; // a pipe, or TERM=dumb
  Captured out(style);
  {
    Step step("downloading x.whl");
    step.bytes(50, 100);
    write("a log line");
  }
  std::string text = captured(out.file);
  EXPECT_EQ(text, "a log line\n");
}

TEST(Progress, WithoutATerminalASilentStepWritesALineEachHeartbeat)
{
  Style style; // a CI log
  Captured out(style);
  set_heartbeat_for_testing(0.3);
  {
    Step step("building");
    step.detail("[1/2] CXX src/a.cc (tf-2.10.1)");
    std::this_thread::sleep_for(std::chrono::milliseconds(900));
  }
  set_heartbeat_for_testing(10);
  std::string text = captured(out.file);
  EXPECT_NE(text.find("building (0:00): [1/2] CXX src/a.cc (tf-2.10.1)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  // A line written resets the silence: none right after it.
  size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
  EXPECT_GE(lines, 1U);
  EXPECT_LE(lines, 3U) << text;
}

TEST(Progress, TheFirstLineComesBeforeTheFirstWrittenAndOnlyThen)
{
  Style style;
  Captured out(style);
  set_first_line("opkit: Entering directory '/p'");
  EXPECT_FALSE(first_line_written()); // nothing written: nothing before it either
  write("a log line");
  write("another");
  EXPECT_TRUE(first_line_written());
  EXPECT_EQ(captured(out.file), "opkit: Entering directory '/p'\na log line\nanother\n");
  set_first_line("");
}

TEST(Progress, QuietShowsNothing)
{
  Style style;
  style.redraw = true;
  style.quiet = true;
  Captured out(style);
  {
    Step step("building");
    step.detail("[1/2] x");
  }
  EXPECT_EQ(captured(out.file), "");
}
