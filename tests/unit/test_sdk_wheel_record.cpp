#include "opkit/sdk/wheel_record.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/hash.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>

using namespace opkit;
using namespace opkit::sdk;

namespace {

// The message of the Error `verify` throws, with its code; "" when it passes.
std::pair<ExitCode, std::string>
verdict(const RecordCheck& check)
{
  try {
    check.verify();
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {ExitCode::ok, ""};
}

} // namespace

TEST(SdkWheelRecord, RecognisesTheRecordPath)
{
  EXPECT_TRUE(is_record_path("tensorflow_cpu-2.10.1.dist-info/RECORD"));
  EXPECT_TRUE(is_record_path("./tensorflow-1.12.0.dist-info//RECORD"));
  for (const char* path :
       {"tensorflow-1.12.0.dist-info/METADATA", "x/tensorflow-1.12.0.dist-info/RECORD", ".dist-info/RECORD",
        "tensorflow-1.12.0.dist-info/RECORD/x", "RECORD", "tensorflow-1.12.0.data/RECORD"}) {
    EXPECT_FALSE(is_record_path(path)) << path;
  }
}

TEST(SdkWheelRecord, ParsesCsvAsPythonWritesIt)
{
  auto record = parse_record("tensorflow/include/a.h,sha256=abc,12\r\n"
                             "\"tensorflow/include/with,comma.h\",sha256=def,3\n"
                             "\"tensorflow/include/\"\"quoted\"\".h\",sha256=ghi,4\n"
                             "\n"
                             "tensorflow_cpu-2.10.1.dist-info/RECORD,,\n"
                             "last/line/without/newline,sha256=jkl,5");
  EXPECT_EQ(record.size(), 5u);
  EXPECT_EQ(record.at("tensorflow/include/a.h"), "sha256=abc");
  EXPECT_EQ(record.at("tensorflow/include/with,comma.h"), "sha256=def");
  EXPECT_EQ(record.at("tensorflow/include/\"quoted\".h"), "sha256=ghi");
  EXPECT_EQ(record.at("tensorflow_cpu-2.10.1.dist-info/RECORD"), "");
  EXPECT_EQ(record.at("last/line/without/newline"), "sha256=jkl");
  EXPECT_THROW(parse_record("a,b\n"), Error);
  EXPECT_THROW(parse_record("a,b,c,d\n"), Error);
}

TEST(SdkWheelRecord, AcceptsMembersWhoseSha256Matches)
{
  // `printf 'hello' | openssl dgst -sha256 -binary | base64 | tr +/ -_ | tr -d =`
  std::string hello = "LPJNul-wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ";
  ASSERT_EQ(to_base64url(sha256_digest("hello")), hello);
  RecordCheck check("t.whl");
  check.set_record("tensorflow/include/a.h,sha256=" + hello + ",5\ntensorflow/include/b.h,sha256=" + hello + "=,5\n");
  check.add("tensorflow/include/a.h", sha256_digest("hello"));
  check.add("tensorflow/include/b.h", sha256_digest("hello")); // padding tolerated
  EXPECT_EQ(verdict(check).first, ExitCode::ok) << verdict(check).second;
}

TEST(SdkWheelRecord, RefusesChangedUnlistedAndUnhashedMembers)
{
  std::string record =
    "tensorflow/include/a.h,sha256=" + to_base64url(sha256_digest("hello")) + ",5\ntensorflow/include/c.h,md5=xyz,5\n";
  // What checking one member read as `content` says.
  auto check_one = [&record](const std::string& path, const std::string& content) {
    RecordCheck check("t.whl");
    check.set_record(record);
    check.add(path, sha256_digest(content));
    return verdict(check);
  };
  for (auto [path, content, expected] :
       {std::tuple<std::string, std::string, std::string>{
          "tensorflow/include/a.h", "hellO", "t.whl: tensorflow/include/a.h: sha256 differs from the wheel's RECORD"},
        {"tensorflow/include/b.h", "hello", "t.whl: tensorflow/include/b.h: not listed in the wheel's RECORD"},
        {"tensorflow/include/c.h", "hello", "t.whl: tensorflow/include/c.h: no sha256 in the wheel's RECORD"}}) {
    auto [code, message] = check_one(path, content);
    EXPECT_EQ(code, ExitCode::failed) << path;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
  EXPECT_EQ(check_one("tensorflow/include/a.h", "hello").first, ExitCode::ok);

  RecordCheck none("t.whl");
  none.add("tensorflow/include/a.h", sha256_digest("hello"));
  EXPECT_EQ(verdict(none).first, ExitCode::usage);

  RecordCheck twice("t.whl");
  twice.set_record(record);
  EXPECT_THROW(twice.set_record(record), Error);
}
