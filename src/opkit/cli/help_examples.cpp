// Each command's examples, shown at the end of its --help and in the man page
// (help_format.hpp). cli_discoverable parses every line with opkit's own CLI.
#include "opkit/cli/help_format.hpp"

#include <map>

namespace opkit::cli {

std::vector<std::string>
examples(const std::string& command_path)
{
  static const std::map<std::string, std::vector<std::string>> k_examples = {
    {"opkit", {"opkit new zero_out --tf 1.12,2.10.1", "opkit -C zero_out build"}},
    {"opkit sdk", {"opkit sdk fetch tensorflow==2.10.1", "opkit sdk list"}},
    {"opkit sdk add", {"opkit sdk add tensorflow_cpu-2.10.1-cp310-cp310-manylinux_2_17_x86_64.whl"}},
    {"opkit sdk list", {"opkit sdk list", "opkit sdk list --json"}},
    {"opkit sdk fetch", {"opkit sdk fetch tensorflow==2.10.1", "opkit sdk fetch torch==2.5.1 --variant cpu"}},
    {"opkit sdk info", {"opkit sdk info 2.10", "opkit sdk info tensorflow-1.12.0 --json"}},
    {"opkit sdk remove", {"opkit sdk remove 1.12"}},
    {"opkit sdk gc", {"opkit sdk gc --downloads"}},
    {"opkit sdk usage", {"opkit sdk usage", "opkit sdk usage --json"}},
    {"opkit new", {"opkit new zero_out --tf 1.12,2.10.1", "opkit new tally --template torch-op --torch 2.5"}},
    {"opkit init", {"opkit init --tf 2.10.1", "opkit init ../my_ops --dry-run"}},
    {"opkit build", {"opkit build", "opkit build --tf 2.10.1 -j 8 --dry-run"}},
    {"opkit test", {"opkit test", "opkit test --python --tf 2.10.1"}},
    {"opkit check",
     {"opkit check build/tf-2.10.1/libzero_out.so --tf 2.10.1", "opkit check libop.so --tf 2.15 --runtime host"}},
    {"opkit profile", {"opkit profile capture -o target.json", "opkit profile list"}},
    {"opkit profile capture", {"opkit profile capture -o target.json"}},
    {"opkit profile script", {"opkit profile script > capture.sh"}},
    {"opkit profile list", {"opkit profile list --json"}},
    {"opkit package",
     {"opkit package wheel", "opkit package verify dist/zero_out-0.1.0-py3-none-manylinux2014_x86_64.whl"}},
    {"opkit package easyrec", {"opkit package easyrec --version 0.7.5 --tf 1.12"}},
    {"opkit package saved-model", {"opkit package saved-model export/1700000000"}},
    {"opkit package tf-serving", {"opkit package tf-serving --serving-dir ../serving"}},
    {"opkit package wheel", {"opkit package wheel", "opkit package wheel --tf 2.10.1 --dry-run"}},
    {"opkit package verify", {"opkit package verify dist/zero_out-0.1.0-py3-none-manylinux2014_x86_64.whl"}},
    {"opkit publish", {"opkit publish dist/ops.tar.gz https://repo.example.com/ops/ops.tar.gz"}},
    {"opkit clean", {"opkit clean", "opkit clean --all"}},
    {"opkit help", {"opkit help build", "opkit help sdk fetch"}},
    {"opkit completion", {"opkit completion bash > ~/.local/share/bash-completion/completions/opkit"}},
    {"opkit config", {"opkit config list", "opkit config set index_url https://pypi.example.com/simple/"}},
    {"opkit config list", {"opkit config list --json"}},
    {"opkit config get", {"opkit config get home"}},
    {"opkit config path", {"opkit config path"}},
    {"opkit config set", {"opkit config set index_url https://pypi.example.com/simple/"}},
  };
  auto found = k_examples.find(command_path);
  return found == k_examples.end() ? std::vector<std::string>{} : found->second;
}

} // namespace opkit::cli
