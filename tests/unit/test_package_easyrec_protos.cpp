#include "opkit/package/easyrec_protos.hpp"

#include <gtest/gtest.h>

using namespace opkit;

namespace {

std::string
parsed(const char* output)
{
  std::optional<project::Version> version = package::parse_protoc_version(output);
  return version ? version->str() : "(none)";
}

project::Version
v(const char* text)
{
  return *project::parse_version(text);
}

} // namespace

TEST(EasyRecProtos, ProtocVersionLine)
{
  EXPECT_EQ(parsed("libprotoc 3.6.1\n"), "3.6.1");
  EXPECT_EQ(parsed("libprotoc 3.4.0"), "3.4.0");
  EXPECT_EQ(parsed("libprotoc 3.21.12\n"), "3.21.12");
  EXPECT_EQ(parsed("libprotoc 2.6.1\n"), "2.6.1");
  // protoc 22 and later number like this; 25.1 is the old numbering's 3.25.1.
  EXPECT_EQ(parsed("libprotoc 25.1\n"), "3.25.1");
  EXPECT_EQ(parsed("libprotoc 22.0\n"), "3.22.0");
  EXPECT_EQ(parsed("libprotoc 3.6\n"), "3.6.0");
  EXPECT_EQ(parsed(""), "(none)");
  EXPECT_EQ(parsed("protoc 3.6.1"), "(none)");
  EXPECT_EQ(parsed("libprotoc three"), "(none)");
  EXPECT_EQ(parsed("Usage: protoc [OPTION] PROTO_FILES"), "(none)");
}

TEST(EasyRecProtos, BoundIsTheOldestTargetsProtobuf)
{
  package::ProtocBound bound = package::protoc_bound({v("2.10.1"), v("1.12.0")});
  EXPECT_EQ(bound.max.str(), "3.6.1");
  EXPECT_EQ(bound.tf, "1.12.0");
  bound = package::protoc_bound({v("2.10.1")});
  EXPECT_EQ(bound.max.str(), "3.9.2");
  EXPECT_EQ(bound.tf, "2.10.1");
}

TEST(EasyRecProtos, ProtocFitsBetweenThreeAndTheBound)
{
  package::ProtocBound pai = package::protoc_bound({v("1.12.0"), v("2.10.1")});
  EXPECT_TRUE(package::protoc_fits(v("3.6.1"), pai));
  EXPECT_TRUE(package::protoc_fits(v("3.4.0"), pai)); // EasyRec's gen_proto.sh
  EXPECT_TRUE(package::protoc_fits(v("3.0.0"), pai));
  EXPECT_FALSE(package::protoc_fits(v("3.6.2"), pai));
  EXPECT_FALSE(package::protoc_fits(v("3.21.12"), pai)); // Debian 12's
  EXPECT_FALSE(package::protoc_fits(v("3.25.1"), pai));
  EXPECT_FALSE(package::protoc_fits(v("2.6.1"), pai));
  package::ProtocBound eas = package::protoc_bound({v("2.10.1")});
  EXPECT_TRUE(package::protoc_fits(v("3.9.2"), eas));
  EXPECT_FALSE(package::protoc_fits(v("3.19.6"), eas));
}
