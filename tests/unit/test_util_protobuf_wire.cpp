#include "opkit/util/protobuf_wire.hpp"

#include "protobuf_test_util.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using namespace opkit;
using namespace opkit::test;
using protobuf::Field;
using protobuf::Reader;
using protobuf::WireError;
using protobuf::WireType;

namespace {

std::vector<Field>
read_all(std::string_view data)
{
  std::vector<Field> fields;
  Reader reader(data);
  Field field;
  while (reader.next(field)) {
    fields.push_back(field);
  }
  return fields;
}

// The WireError reading `data` throws; fails the test when it reads cleanly.
WireError
error_of(std::string_view data)
{
  try {
    read_all(data);
  } catch (const WireError& e) {
    return e;
  }
  ADD_FAILURE() << "read without an error";
  return WireError(0, "");
}

} // namespace

TEST(ProtobufWire, ReadsEveryWireType)
{
  std::string data = pb_varint_field(1, 150) + pb_len_field(2, "testing") + pb_tag(3, 1)
                     + std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8) + pb_tag(4, 5)
                     + std::string("\xff\xff\xff\xff", 4) + pb_varint_field(536870911, UINT64_MAX);
  std::vector<Field> fields = read_all(data);
  ASSERT_EQ(fields.size(), 5u);
  EXPECT_EQ(fields[0].number, 1u);
  EXPECT_EQ(fields[0].type, WireType::varint);
  EXPECT_EQ(fields[0].value, 150u);
  EXPECT_EQ(fields[0].offset, 0u);
  EXPECT_EQ(fields[1].type, WireType::length_delimited);
  EXPECT_EQ(fields[1].bytes, "testing");
  EXPECT_EQ(fields[1].offset, 3u);
  EXPECT_EQ(fields[1].value_offset, 5u);
  EXPECT_EQ(fields[2].type, WireType::fixed64);
  EXPECT_EQ(fields[2].value, 0x0807060504030201u);
  EXPECT_EQ(fields[3].type, WireType::fixed32);
  EXPECT_EQ(fields[3].value, 0xffffffffu);
  EXPECT_EQ(fields[4].number, 536870911u);
  EXPECT_EQ(fields[4].value, UINT64_MAX);
}

TEST(ProtobufWire, EmptyMessageHasNoFields)
{
  EXPECT_TRUE(read_all("").empty());
}

TEST(ProtobufWire, NestedReaderCountsOffsetsFromTheOutermostMessage)
{
  std::string inner = pb_varint_field(1, 7) + pb_tag(2, 0) + "\x80"; // a truncated varint at inner byte 3
  std::string data = pb_varint_field(9, 1) + pb_len_field(2, inner);
  std::vector<Field> fields = read_all(data);
  ASSERT_EQ(fields.size(), 2u);
  Reader nested = Reader::nested(fields[1]);
  Field field;
  ASSERT_TRUE(nested.next(field));
  EXPECT_EQ(field.offset, 4u);
  try {
    nested.next(field);
    FAIL() << "no error";
  } catch (const WireError& e) {
    EXPECT_EQ(e.offset(), 7u);
    EXPECT_EQ(std::string(e.what()), "byte 7: truncated varint value (the data ends inside a varint)");
  }
}

TEST(ProtobufWire, TruncatedVarints)
{
  EXPECT_NE(std::string(error_of("\x08").what()).find("truncated varint value"), std::string::npos);
  EXPECT_NE(std::string(error_of("\x08\x96").what()).find("truncated varint value"), std::string::npos);
  EXPECT_NE(std::string(error_of("\x80").what()).find("truncated field tag"), std::string::npos);
  EXPECT_NE(std::string(error_of(pb_len_field(1, "x") + "\x12").what()).find("byte 4: truncated length"),
            std::string::npos);
}

TEST(ProtobufWire, OverlongVarints)
{
  std::string eleven(10, '\xff');
  eleven.push_back('\x01');
  EXPECT_NE(std::string(error_of("\x08" + eleven).what()).find("overflows 64 bits"), std::string::npos);
  std::string ten_zeros(9, '\x80');
  ten_zeros.push_back('\x02'); // bit 64
  EXPECT_NE(std::string(error_of("\x08" + ten_zeros).what()).find("overflows 64 bits"), std::string::npos);
  std::string padded(9, '\x80');
  padded.push_back('\x80'); // a continuation bit on the 10th byte
  padded.push_back('\x00');
  EXPECT_THROW(read_all("\x08" + padded), WireError);
}

TEST(ProtobufWire, LengthPastTheEnd)
{
  WireError e = error_of(pb_tag(2, 2) + pb_varint(5) + "abc");
  EXPECT_EQ(e.offset(), 0u);
  EXPECT_EQ(std::string(e.what()), "byte 0: field 2 (LEN) of 5 bytes runs past the end (3 bytes left)");
  EXPECT_THROW(read_all(pb_tag(1, 1) + "\x01\x02\x03"), WireError);
  EXPECT_THROW(read_all(pb_tag(1, 5) + "\x01"), WireError);
}

TEST(ProtobufWire, HugeLengthsAreRefusedNotAllocated)
{
  for (uint64_t length : {uint64_t(1) << 31, uint64_t(1) << 32, uint64_t(1) << 63, UINT64_MAX, UINT64_MAX - 1}) {
    std::string data = pb_tag(2, 2) + pb_varint(length) + "tail";
    WireError e = error_of(data);
    EXPECT_NE(std::string(e.what()).find("runs past the end (4 bytes left)"), std::string::npos) << e.what();
  }
}

TEST(ProtobufWire, BadTags)
{
  EXPECT_NE(std::string(error_of(std::string(1, '\0')).what()).find("field number 0 is out of range"),
            std::string::npos);
  EXPECT_NE(std::string(error_of(pb_varint(uint64_t(1) << 32)).what()).find("out of range"), std::string::npos);
  EXPECT_NE(std::string(error_of(pb_tag(1, 3)).what()).find("group"), std::string::npos);
  EXPECT_NE(std::string(error_of(pb_tag(1, 4)).what()).find("group"), std::string::npos);
  EXPECT_NE(std::string(error_of(pb_tag(1, 6)).what()).find("wire type 6, which does not exist"), std::string::npos);
  EXPECT_NE(std::string(error_of(pb_tag(1, 7)).what()).find("wire type 7"), std::string::npos);
}

TEST(ProtobufWire, CheckMessage)
{
  EXPECT_NO_THROW(protobuf::check_message(pb_len_field(1, "abc") + pb_varint_field(2, 1)));
  EXPECT_THROW(protobuf::check_message("hello, world\n"), WireError);
}

// Random bytes, and every prefix and one-byte change of a valid message: a
// WireError or a clean read, never anything else (and never a crash under ASan).
TEST(ProtobufWire, HostileBytesNeverCrash)
{
  std::mt19937 random(12);
  auto walk = [](std::string_view data) {
    try {
      Reader reader(data);
      Field field;
      while (reader.next(field)) {
        if (field.type == WireType::length_delimited) {
          ASSERT_LE(field.value_offset + field.bytes.size(), data.size());
          protobuf::check_message(field.bytes, field.value_offset);
        }
      }
    } catch (const WireError&) {
    }
  };
  for (int i = 0; i < 20000; ++i) {
    std::string data(random() % 64, '\0');
    for (char& c : data) {
      c = static_cast<char>(random());
    }
    walk(data);
  }
  std::string valid = pb_varint_field(1, 1) + pb_len_field(2, pb_len_field(1, pb_len_field(4, "serve"))) + pb_tag(3, 1)
                      + std::string(8, '\x01');
  for (size_t n = 0; n <= valid.size(); ++n) {
    walk(std::string_view(valid).substr(0, n));
  }
  for (size_t at = 0; at < valid.size(); ++at) {
    for (int value : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
      std::string changed = valid;
      changed[at] = static_cast<char>(value);
      walk(changed);
    }
  }
}
