#include "opkit/cli/commands.hpp"
#include "opkit/sdk/importer.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/format.hpp"

#include <fmt/format.h>

namespace opkit::cli {

namespace {

void
print_sdk_line(const sdk::Sdk& sdk)
{
  fmt::print("{:<24} {:<10} abi={} c++{} {:<30} {}\n", sdk.id, sdk.version.str(), sdk.cxx11_abi, sdk.cxx_standard,
             sdk.soname, sdk.root);
}

void
run_list(const GlobalOptions& global)
{
  std::vector<sdk::Sdk> sdks = sdk::list_sdks();
  if (global.json) {
    Json list = Json::array();
    for (const sdk::Sdk& sdk : sdks) {
      list.push_back(sdk::to_json(sdk));
    }
    fmt::print("{}\n", list.dump(2));
    return;
  }
  if (sdks.empty()) {
    fmt::print(stderr, "no SDKs in {}; add one with `opkit sdk add <wheel>`\n", sdk::sdk_store_dir());
  }
  for (const sdk::Sdk& sdk : sdks) {
    print_sdk_line(sdk);
  }
}

} // namespace

void
add_sdk_command(CLI::App& app, GlobalOptions& global, int& exit_code)
{
  CLI::App* sdk_app = app.add_subcommand("sdk", "Manage framework SDKs (headers + framework library)");
  sdk_app->require_subcommand(1);

  static std::string source;
  CLI::App* add = sdk_app->add_subcommand("add", "Import a TensorFlow SDK from an official wheel or a package folder");
  add->add_option("source", source, "A tensorflow*.whl, or an installed site-packages/tensorflow folder")->required();
  add->callback([&global, &exit_code] {
    sdk::Sdk sdk = sdk::import_sdk(source);
    if (global.json) {
      fmt::print("{}\n", sdk::to_json(sdk).dump(2));
    } else {
      print_sdk_line(sdk);
    }
    exit_code = 0;
  });

  CLI::App* list = sdk_app->add_subcommand("list", "List the imported SDKs");
  list->add_flag("--json", global.json, "Print JSON");
  list->callback([&global, &exit_code] {
    run_list(global);
    exit_code = 0;
  });
  add->add_flag("--json", global.json, "Print the imported SDK's facts as JSON");
}

} // namespace opkit::cli
