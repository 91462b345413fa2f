// Build-time helper: writes opkit's embedded YAML configs as twins, the same
// document in MessagePack, which nlohmann-json writes and reads.
//
//   opkit_yaml_twin IN.yaml OUT.msgpack
//
// Every scalar stays a string (yaml-cpp hands opkit's readers strings anyway),
// maps keep their order. project/yaml_util loads a twin instead of scanning
// the YAML on every run: yaml-cpp's scanner took about a millisecond of each
// opkit check, and lexing the same document as JSON a quarter of one;
// MessagePack's items come length-first, so reading one is a copy. (Not CBOR:
// nlohmann's CBOR reader decodes half floats with libm's ldexp, and opkit's
// start maps no libm.) A YAML file that does not parse fails the build.
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iostream>
#include <vector>

namespace {

nlohmann::ordered_json
convert(const YAML::Node& node)
{
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& entry : node) {
        object[entry.first.Scalar()] = convert(entry.second);
      }
      return object;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const YAML::Node& item : node) {
        array.push_back(convert(item));
      }
      return array;
    }
    case YAML::NodeType::Scalar:
      return node.Scalar();
    default:
      return nullptr;
  }
}

} // namespace

int
main(int argc, char** argv)
{
  if (argc != 3) {
    std::cerr << "usage: opkit_yaml_twin IN.yaml OUT.msgpack\n";
    return 2;
  }
  try {
    nlohmann::ordered_json json = convert(YAML::LoadFile(argv[1]));
    std::vector<uint8_t> bytes = nlohmann::ordered_json::to_msgpack(json);
    std::ofstream out(argv[2], std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return out ? 0 : 1;
  } catch (const YAML::Exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
