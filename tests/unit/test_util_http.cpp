#include "opkit/util/error.hpp"
#include "opkit/util/http.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace opkit;

// No network here: the pure parts of util/http (the transfers are covered by
// the integration tests against tests/integration/index_server.py).

TEST(Http, ContentRangeForms)
{
  auto range = parse_content_range("bytes 100-199/1000");
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 100);
  EXPECT_EQ(range->last, 199);
  EXPECT_EQ(range->total, 1000);

  range = parse_content_range("bytes 0-99/*"); // size unknown
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 0);
  EXPECT_EQ(range->last, 99);
  EXPECT_EQ(range->total, -1);

  range = parse_content_range("bytes */1000"); // a 416's
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, -1);
  EXPECT_EQ(range->last, -1);
  EXPECT_EQ(range->total, 1000);

  range = parse_content_range("  Bytes 5-5/6 "); // unit in any case, spaces around
  ASSERT_TRUE(range);
  EXPECT_EQ(range->first, 5);
  EXPECT_EQ(range->total, 6);

  range = parse_content_range("bytes 0-226810047/226810048"); // a 216 MiB wheel
  ASSERT_TRUE(range);
  EXPECT_EQ(range->last, 226810047);
}

TEST(Http, ContentRangeRejectsMalformed)
{
  for (const char* bad : {"", "bytes", "bytes ", "bytes 1-2", "bytes */*", "items 0-1/2", "bytes=0-1/2", "bytes 2-1/10",
                          "bytes 0-10/10", "bytes -1-2/10", "bytes 0-+1/10", "bytes a-b/c", "bytes 0-1/", "bytes 1/10",
                          "bytes 0-1/99999999999999999999999"}) {
    EXPECT_FALSE(parse_content_range(bad)) << "'" << bad << "'";
  }
}

TEST(Http, ResumeActions)
{
  // 206 continuing exactly where the file ends: append.
  EXPECT_EQ(resume_action(206, "bytes 500-999/1000", 500), ResumeAction::append);
  EXPECT_EQ(resume_action(206, "bytes 500-999/*", 500), ResumeAction::append);
  // 206 starting elsewhere, or without a usable Content-Range: the kept bytes cannot be continued.
  EXPECT_EQ(resume_action(206, "bytes 0-999/1000", 500), ResumeAction::restart);
  EXPECT_EQ(resume_action(206, "", 500), ResumeAction::restart);
  EXPECT_EQ(resume_action(206, "bytes */1000", 500), ResumeAction::restart);
  // The server ignored the range: the body is the whole file.
  EXPECT_EQ(resume_action(200, "", 500), ResumeAction::replace);
  EXPECT_EQ(resume_action(200, "", 0), ResumeAction::replace);
  EXPECT_EQ(resume_action(203, "", 0), ResumeAction::replace);
  // 416: complete when the server's size is what we have, else start over.
  EXPECT_EQ(resume_action(416, "bytes */1000", 1000), ResumeAction::complete);
  EXPECT_EQ(resume_action(416, "bytes */1000", 1500), ResumeAction::restart);
  EXPECT_EQ(resume_action(416, "bytes */1000", 999), ResumeAction::restart);
  EXPECT_EQ(resume_action(416, "", 1000), ResumeAction::restart);
  // A 416 to a request that asked for no range is the server's error, not a resume question.
  EXPECT_EQ(resume_action(416, "bytes */0", 0), ResumeAction::error);
  // Error answers are never the file's bytes.
  EXPECT_EQ(resume_action(404, "", 500), ResumeAction::error);
  EXPECT_EQ(resume_action(503, "", 0), ResumeAction::error);
  EXPECT_EQ(resume_action(302, "", 0), ResumeAction::error);
}

TEST(Http, DisplayUrlHidesSecrets)
{
  EXPECT_EQ(http_display_url("https://user:secret@example.com/simple/x/?token=abc&X-Amz-Signature=f00#sha256=00"),
            "https://user:****@example.com/simple/x/?token=****&X-Amz-Signature=****");
  EXPECT_EQ(http_display_url("http://127.0.0.1:8080/files/a.whl"), "http://127.0.0.1:8080/files/a.whl");
}

TEST(Http, UrlAndHeaderChecks)
{
  EXPECT_NO_THROW(check_http_url("https://pypi.org/simple/tensorflow/"));
  EXPECT_THROW(check_http_url("ftp://example.com/x.whl"), Error);
  EXPECT_THROW(check_http_url("file:///etc/passwd"), Error);
  EXPECT_NO_THROW(check_http_header("Accept: application/vnd.pypi.simple.v1+json"));
  EXPECT_THROW(check_http_header("Accept: x\r\nEvil: y"), Error);
  EXPECT_THROW(check_http_header("no colon"), Error);
}

TEST(NetworkFailureSaid, PipsRetryWarningsNameTheCause)
{
  std::string refused = "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after "
                        "connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection "
                        "object at 0x7f6d528ea4d0>: Failed to establish a new connection: [Errno 111] Connection "
                        "refused')': /simple/numpy/\nERROR: Could not find a version that satisfies the requirement";
  EXPECT_EQ(opkit::network_failure_said(refused), "[Errno 111] Connection refused");
  EXPECT_EQ(opkit::network_failure_said("... [Errno -3] Temporary failure in name resolution')"),
            "[Errno -3] Temporary failure in name resolution");
  // pip's answer without a network failure (no such version): nothing.
  EXPECT_EQ(opkit::network_failure_said("ERROR: No matching distribution found for numpy==0.0"), "");
  opkit::NetworkError error = opkit::network_unreachable("pip install numpy", "", "[Errno 111] Connection refused");
  EXPECT_EQ(error.code(), opkit::ExitCode::system);
  EXPECT_STREQ(error.what(),
               "pip install numpy: failed: the network does not reach it: [Errno 111] Connection refused");
}
