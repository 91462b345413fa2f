#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace opkit::protobuf {

// The protobuf wire format (https://protobuf.dev/programming-guides/encoding/),
// read bounds-checked from bytes that may be hostile: every read is checked
// against the end of its message, nothing is allocated from a length the input
// claims, and malformed input is a WireError, never a crash. Groups (wire
// types 3 and 4, deprecated; no TensorFlow message uses them) are refused.

enum class WireType : uint8_t
{
  varint = 0,
  fixed64 = 1,
  length_delimited = 2,
  fixed32 = 5,
};

// Names the wire type as the encoding guide does ("varint", "LEN", "I64", "I32").
const char*
wire_type_name(WireType type);

// Malformed input. what() says what is wrong and at which byte, counted from
// the start of the outermost message.
class WireError : public std::runtime_error
{
public:
  WireError(size_t offset, std::string detail);
  size_t offset() const { return m_offset; }
  // what() without the "byte N: " in front.
  const std::string& detail() const { return m_detail; }

private:
  size_t m_offset;
  std::string m_detail;
};

struct Field
{
  uint32_t number = 0;
  WireType type = WireType::varint;
  uint64_t value = 0;      // varint, fixed64 and fixed32: the value
  std::string_view bytes;  // length-delimited: the payload (a view into the input)
  size_t offset = 0;       // where the field's tag starts
  size_t value_offset = 0; // where its value (for LEN: the payload) starts
};

// Reads the fields of one message in order.
class Reader
{
public:
  // `base` is where `data` starts in the outermost message, for error offsets;
  // a nested message's reader takes its field's value_offset.
  explicit Reader(std::string_view data, size_t base = 0)
    : m_data(data)
    , m_base(base)
  {
  }
  // For the payload of a length-delimited field.
  static Reader nested(const Field& field) { return Reader(field.bytes, field.value_offset); }

  // The next field, or false at the end of the message. Throws WireError on a
  // truncated varint, a varint longer than 10 bytes, a field number 0 or over
  // 2^29-1, a group or an unknown wire type, or a value running past the end.
  bool next(Field& field);

  // The offset (in the outermost message) of the next byte to read.
  size_t offset() const { return m_base + m_pos; }

private:
  uint64_t read_varint(const char* what);

  std::string_view m_data;
  size_t m_base;
  size_t m_pos = 0;
};

// Reads every field of a message (without looking into length-delimited
// payloads): throws WireError where it is not well-formed.
void
check_message(std::string_view data, size_t base = 0);

} // namespace opkit::protobuf
