// libFuzzer target for opkit's SavedModel check (package/saved_model_proto)
// and the protobuf wire-format reader under it (util/protobuf_wire).
//
// A saved_model.pb is untrusted input: read_saved_model must turn every
// malformed input into protobuf::WireError. The target swallows that exception
// and nothing else, so any other exception, sanitizer report or crash is a
// finding. Seeds: corpus-saved-model/ (corpus-src/saved_model_seeds.py).

#include "opkit/package/saved_model_proto.hpp"
#include "opkit/util/protobuf_wire.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    opkit::package::SavedModelSummary summary = opkit::package::read_saved_model(bytes);
    // What it accepts has a meta graph, and every tag lies inside the input.
    if (summary.meta_graph_tags.empty()) {
      __builtin_trap();
    }
    size_t tag_bytes = 0;
    for (const auto& tags : summary.meta_graph_tags) {
      for (const auto& tag : tags) {
        tag_bytes += tag.size();
      }
    }
    if (tag_bytes > size) {
      __builtin_trap();
    }
  } catch (const opkit::protobuf::WireError& e) {
    if (e.offset() > size) {
      __builtin_trap();
    }
  }
  return 0;
}
