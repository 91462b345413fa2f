// Build-time helper: writes opkit's embedded YAML configs as JSON twins.
//
//   opkit_yaml_to_json IN.yaml OUT.json
//
// Every scalar stays a string (yaml-cpp hands opkit's readers strings anyway),
// maps keep their order. project/yaml_util loads a twin instead of scanning
// the YAML on every run: yaml-cpp's scanner took about a millisecond of each
// opkit check. A YAML file that does not parse fails the build.
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <iostream>

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
    std::cerr << "usage: opkit_yaml_to_json IN.yaml OUT.json\n";
    return 2;
  }
  try {
    nlohmann::ordered_json json = convert(YAML::LoadFile(argv[1]));
    std::ofstream out(argv[2], std::ios::binary);
    out << json.dump() << '\n';
    return out ? 0 : 1;
  } catch (const YAML::Exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
}
