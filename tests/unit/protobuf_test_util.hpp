#pragma once

// Encodes protobuf wire-format bytes for the tests of util/protobuf_wire and
// package/saved_model_proto.

#include <cstdint>
#include <string>
#include <string_view>

namespace opkit::test {

inline std::string
pb_varint(uint64_t value)
{
  std::string out;
  do {
    uint8_t byte = value & 0x7f;
    value >>= 7;
    out.push_back(static_cast<char>(value != 0 ? (byte | 0x80) : byte));
  } while (value != 0);
  return out;
}

inline std::string
pb_tag(uint32_t number, int wire_type)
{
  return pb_varint((static_cast<uint64_t>(number) << 3) | static_cast<uint64_t>(wire_type));
}

inline std::string
pb_varint_field(uint32_t number, uint64_t value)
{
  return pb_tag(number, 0) + pb_varint(value);
}

inline std::string
pb_len_field(uint32_t number, std::string_view payload)
{
  return pb_tag(number, 2) + pb_varint(payload.size()) + std::string(payload);
}

} // namespace opkit::test
