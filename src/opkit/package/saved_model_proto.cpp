#include "opkit/package/saved_model_proto.hpp"

#include "opkit/util/protobuf_wire.hpp"

#include <fmt/core.h>

#include <array>
#include <utility>

namespace opkit::package {

namespace {

using protobuf::Field;
using protobuf::Reader;
using protobuf::WireError;
using protobuf::WireType;

void
expect_type(const Field& field, WireType wanted, const std::string& context, const char* name)
{
  if (field.type != wanted) {
    throw WireError(field.offset, fmt::format("{}: field {} ({}) is {}, not {}", context, field.number, name,
                                              protobuf::wire_type_name(field.type), protobuf::wire_type_name(wanted)));
  }
}

// A LEN field whose payload must be a message: checks it is well-formed.
void
check_nested(const Field& field, const std::string& context)
{
  try {
    protobuf::check_message(field.bytes, field.value_offset);
  } catch (const WireError& e) {
    throw WireError(e.offset(), fmt::format("{}: {}", context, e.detail()));
  }
}

// GraphDef (tensorflow/core/framework/graph.proto): node = 1, library = 2,
// version = 3 (deprecated), versions = 4.
void
check_graph_def(const Field& graph_def, const std::string& context)
{
  check_nested(graph_def, context);
  Reader reader = Reader::nested(graph_def);
  Field field;
  while (reader.next(field)) {
    switch (field.number) {
      case 1:
        expect_type(field, WireType::length_delimited, context, "node");
        break;
      case 2:
        expect_type(field, WireType::length_delimited, context, "library");
        break;
      case 3:
        expect_type(field, WireType::varint, context, "version");
        break;
      case 4:
        expect_type(field, WireType::length_delimited, context, "versions");
        break;
      default:
        break;
    }
  }
}

struct MetaGraphInfo
{
  std::vector<std::string> tags;
  std::string tensorflow_version;
};

// MetaInfoDef: tags = 4 (repeated string), tensorflow_version = 5 (string).
void
read_meta_info(const Field& meta_info_def, const std::string& context, MetaGraphInfo& info)
{
  check_nested(meta_info_def, context);
  Reader reader = Reader::nested(meta_info_def);
  Field field;
  while (reader.next(field)) {
    if (field.number == 4) {
      expect_type(field, WireType::length_delimited, context, "tags");
      info.tags.emplace_back(field.bytes);
    } else if (field.number == 5) {
      expect_type(field, WireType::length_delimited, context, "tensorflow_version");
      info.tensorflow_version = std::string(field.bytes);
    }
  }
}

// MetaGraphDef (tensorflow/core/protobuf/meta_graph.proto).
MetaGraphInfo
read_meta_graph(const Field& meta_graph, const std::string& context)
{
  static const std::array<const char*, 8> k_names = {"",
                                                     "meta_info_def",
                                                     "graph_def",
                                                     "saver_def",
                                                     "collection_def",
                                                     "signature_def",
                                                     "asset_file_def",
                                                     "object_graph_def"};
  try {
    protobuf::check_message(meta_graph.bytes, meta_graph.value_offset);
  } catch (const WireError& e) {
    throw WireError(e.offset(), fmt::format("{}: {}", context, e.detail()));
  }
  MetaGraphInfo info;
  Reader reader = Reader::nested(meta_graph);
  Field field;
  while (reader.next(field)) {
    if (field.number < 1 || field.number >= k_names.size()) {
      continue;
    }
    const char* name = k_names[field.number];
    expect_type(field, WireType::length_delimited, context, name);
    std::string inner = fmt::format("{}.{}", context, name);
    if (field.number == 1) {
      info = MetaGraphInfo{};
      read_meta_info(field, inner, info);
    } else if (field.number == 2) {
      check_graph_def(field, inner);
    } else {
      check_nested(field, inner);
    }
  }
  return info;
}

} // namespace

SavedModelSummary
read_saved_model(std::string_view bytes)
{
  SavedModelSummary summary;
  Reader reader(bytes);
  Field field;
  while (reader.next(field)) {
    if (field.number == 1) {
      expect_type(field, WireType::varint, "SavedModel", "saved_model_schema_version");
      summary.schema_version = field.value;
    } else if (field.number == 2) {
      expect_type(field, WireType::length_delimited, "SavedModel", "meta_graphs");
      std::string context = fmt::format("meta_graphs[{}]", summary.meta_graph_tags.size());
      MetaGraphInfo info = read_meta_graph(field, context);
      summary.meta_graph_tags.push_back(std::move(info.tags));
      summary.tensorflow_versions.push_back(std::move(info.tensorflow_version));
    }
  }
  if (summary.meta_graph_tags.empty()) {
    throw WireError(bytes.size(), "SavedModel: no meta graph (field 2, meta_graphs)");
  }
  return summary;
}

} // namespace opkit::package
