#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opkit::package {

// What a saved_model.pb holds, as far as opkit looks.
struct SavedModelSummary
{
  uint64_t schema_version = 0;                           // saved_model_schema_version (1 today)
  std::vector<std::vector<std::string>> meta_graph_tags; // per meta graph, its tags (e.g. "serve")
  std::vector<std::string> tensorflow_versions;          // per meta graph, the TF that wrote it ("" if unsaid)
};

// Checks that `bytes` are a serialized tensorflow.SavedModel
// (tensorflow/core/protobuf/saved_model.proto), read with the bounds-checked
// wire-format reader (util/protobuf_wire), without libprotobuf:
// - every field of the SavedModel is well-formed; field 1
//   (saved_model_schema_version) is a varint, field 2 (meta_graphs) is LEN;
// - each meta graph (MetaGraphDef) is a well-formed message whose fields 1-7
//   (meta_info_def, graph_def, saver_def, collection_def, signature_def,
//   asset_file_def, object_graph_def) are LEN and are well-formed messages
//   themselves; meta_info_def's tags (4) and tensorflow_version (5) are LEN; graph_def's node, library and versions are
//   LEN and its version a varint;
// - there is at least one meta graph.
// Unknown fields are skipped, as protobuf does. Throws protobuf::WireError
// saying what is wrong, where (byte offset) and in which message.
SavedModelSummary
read_saved_model(std::string_view bytes);

} // namespace opkit::package
