#include "opkit/util/protobuf_wire.hpp"

#include <fmt/core.h>

#include <utility>

namespace opkit::protobuf {

namespace {

const uint32_t k_max_field_number = (1u << 29) - 1;

} // namespace

const char*
wire_type_name(WireType type)
{
  switch (type) {
    case WireType::varint:
      return "varint";
    case WireType::fixed64:
      return "I64";
    case WireType::length_delimited:
      return "LEN";
    case WireType::fixed32:
      return "I32";
  }
  return "?";
}

WireError::WireError(size_t offset, std::string detail)
  : std::runtime_error(fmt::format("byte {}: {}", offset, detail))
  , m_offset(offset)
  , m_detail(std::move(detail))
{
}

uint64_t
Reader::read_varint(const char* what)
{
  size_t start = m_pos;
  uint64_t value = 0;
  for (int i = 0; i < 10; ++i) {
    if (m_pos >= m_data.size()) {
      throw WireError(m_base + start, fmt::format("truncated {} (the data ends inside a varint)", what));
    }
    auto byte = static_cast<uint8_t>(m_data[m_pos++]);
    // The 10th byte holds bit 63 only.
    if (i == 9 && byte > 1) {
      throw WireError(m_base + start, fmt::format("{} overflows 64 bits", what));
    }
    value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      return value;
    }
  }
  throw WireError(m_base + start, fmt::format("{} is longer than 10 bytes", what));
}

bool
Reader::next(Field& field)
{
  if (m_pos >= m_data.size()) {
    return false;
  }
  field = Field{};
  field.offset = m_base + m_pos;
  uint64_t tag = read_varint("field tag");
  uint64_t number = tag >> 3;
  auto type = static_cast<uint8_t>(tag & 7);
  if (number == 0 || number > k_max_field_number) {
    throw WireError(field.offset, fmt::format("field number {} is out of range (1 to 2^29-1)", number));
  }
  field.number = static_cast<uint32_t>(number);
  if (type == 3 || type == 4) {
    throw WireError(field.offset,
                    fmt::format("field {} is a group (wire type {}), which is not supported", number, type));
  }
  if (type != 0 && type != 1 && type != 2 && type != 5) {
    throw WireError(field.offset, fmt::format("field {} has wire type {}, which does not exist", number, type));
  }
  field.type = static_cast<WireType>(type);
  field.value_offset = m_base + m_pos;
  size_t left = m_data.size() - m_pos;
  switch (field.type) {
    case WireType::varint:
      field.value = read_varint("varint value");
      break;
    case WireType::fixed64:
    case WireType::fixed32: {
      size_t width = field.type == WireType::fixed64 ? 8 : 4;
      if (left < width) {
        throw WireError(field.offset, fmt::format("field {} ({}) runs past the end ({} bytes left)", number,
                                                  wire_type_name(field.type), left));
      }
      for (size_t i = 0; i < width; ++i) {
        field.value |= static_cast<uint64_t>(static_cast<uint8_t>(m_data[m_pos + i])) << (8 * i);
      }
      m_pos += width;
      break;
    }
    case WireType::length_delimited: {
      uint64_t length = read_varint("length");
      left = m_data.size() - m_pos;
      if (length > left) {
        throw WireError(field.offset, fmt::format("field {} (LEN) of {} bytes runs past the end ({} bytes left)",
                                                  number, length, left));
      }
      field.value = length;
      field.value_offset = m_base + m_pos;
      field.bytes = m_data.substr(m_pos, static_cast<size_t>(length));
      m_pos += static_cast<size_t>(length);
      break;
    }
  }
  return true;
}

void
check_message(std::string_view data, size_t base)
{
  Reader reader(data, base);
  Field field;
  while (reader.next(field)) {
  }
}

} // namespace opkit::protobuf
