#include "opkit/cli/commands.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/builder/pch.hpp"
#include "opkit/builder/toolchain.hpp"
#include "opkit/cpu/verdict.hpp"
#include "opkit/sdk/fetch.hpp"
#include "opkit/sdk/importer.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/sdk/store_report.hpp"
#include "opkit/util/disk_usage.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace opkit::cli {

namespace {

// Which CUDA toolkit builds this CUDA SDK's device code, and whether it is here yet.
Json
cuda_toolkit_json(const sdk::Sdk& sdk)
{
  Json json = Json::object();
  try {
    builder::CudaToolkit toolkit = builder::cuda_toolkit_for(sdk, "its device code", false);
    std::error_code ec;
    json["release"] = toolkit.release;
    json["origin"] = toolkit.origin;
    json["nvcc"] = toolkit.nvcc.string();
    json["present"] = std::filesystem::exists(toolkit.nvcc, ec);
  } catch (const Error& e) {
    json = Json{{"release", ""}, {"origin", "none"}, {"nvcc", ""}, {"present", false}, {"error", e.what()}};
  }
  return json;
}

void
print_sdk_line(const sdk::Sdk& sdk)
{
  fmt::print("{:<24} {:<10} abi={} c++{} {:<30} {}\n", sdk.id, sdk.version.str(), sdk.cxx11_abi, sdk.cxx_standard,
             sdk.soname, sdk.root);
}

// `sdk list`: each SDK with its size on disk (util/disk_usage), the store's total last.
void
run_sdk_list(const GlobalOptions& global)
{
  std::vector<sdk::Sdk> sdks = sdk::list_sdks();
  std::vector<uint64_t> sizes;
  for (const sdk::Sdk& sdk : sdks) {
    sizes.push_back(fs::disk_usage(sdk.root).bytes);
  }
  if (global.json) {
    Json list = Json::array();
    for (size_t i = 0; i < sdks.size(); ++i) {
      list.push_back(sdk::to_json(sdks[i]));
      list.back()["size_bytes"] = sizes[i];
    }
    fmt::print("{}\n", json_text(list, 2));
    return;
  }
  if (sdks.empty()) {
    fmt::print(stderr, "no SDKs in {}; add one with `opkit sdk add <wheel>`\n", sdk::sdk_store_dir());
    return;
  }
  uint64_t total = 0;
  for (size_t i = 0; i < sdks.size(); ++i) {
    const sdk::Sdk& sdk = sdks[i];
    fmt::print("{:<24} {:<10} {:>9}  abi={} c++{} {:<30} {}\n", sdk.id, sdk.version.str(), fs::human_bytes(sizes[i]),
               sdk.cxx11_abi, sdk.cxx_standard, sdk.soname, sdk.root);
    total += sizes[i];
  }
  fmt::print("{} SDK{}, {} on disk; all the store costs: opkit sdk usage\n", sdks.size(), sdks.size() == 1 ? "" : "s",
             fs::human_bytes(total));
}

// An SDK's `cuda` in words: "CUDA 11.8, cuDNN 8 (a CUDA build)", "none (a CPU build)".
std::string
cuda_words(const sdk::Sdk& sdk)
{
  if (!sdk.cuda.is_cuda_build) {
    return "none (a CPU build)";
  }
  std::string text = sdk.cuda.cuda_version.empty() ? "CUDA (release not stated)" : "CUDA " + sdk.cuda.cuda_version;
  text += sdk.cuda.cudnn_version.empty() ? "" : ", cuDNN " + sdk.cuda.cudnn_version;
  return text + " (a CUDA build)";
}

// `sdk usage`: each part of the store, its size, path and what removes it.
void
print_store_report(const sdk::StoreReport& report)
{
  fmt::print("opkit's store in {} (sizes: disk space allocated, as `du -s` counts it)\n", report.home);
  for (const sdk::StorePart& part : report.parts) {
    if (part.name == "other" && part.items.empty()) {
      continue;
    }
    std::string count = fmt::format("{} file{}", part.usage.files, part.usage.files == 1 ? "" : "s");
    fmt::print("{:<20} {:>9}  {:>12}  {}\n", part.title, fs::human_bytes(part.usage.bytes), count,
               part.name == "other" ? "" : part.path.string());
    if (part.name == "other") {
      for (const sdk::StoreItem& item : part.items) {
        fmt::print("{:<20} {:>9}  {}\n", "", fs::human_bytes(item.bytes), (report.home / item.name).string());
      }
    }
    for (size_t i = 0; i < part.removed_by.size(); ++i) {
      fmt::print("{:<20} {:>11} {}\n", "", i == 0 ? "removed by:" : "or:", part.removed_by[i]);
    }
  }
  fmt::print("{:<20} {:>9}\n", "total", fs::human_bytes(report.total_bytes));
}

// `sdk list --ids FRAMEWORK`: what --tf, --torch, sdk info and sdk remove take,
// for the completions: every id, then each version once.
void
print_sdk_ids(const std::string& framework)
{
  std::vector<std::string> ids;
  std::vector<std::string> versions;
  for (const sdk::Sdk& sdk : sdk::list_sdks()) {
    if (framework != "all" && sdk.framework != framework) {
      continue;
    }
    ids.push_back(sdk.id);
    if (std::find(versions.begin(), versions.end(), sdk.version.str()) == versions.end()) {
      versions.push_back(sdk.version.str());
    }
  }
  for (const std::string& line : ids) {
    fmt::print("{}\n", line);
  }
  for (const std::string& line : versions) {
    fmt::print("{}\n", line);
  }
}

// "downloaded 34.8 MB of 214.5 MB in 4 requests (only what the SDK keeps)", or how the whole wheel came.
std::string
describe_download(const sdk::FetchResult& result)
{
  if (result.requests == 0) {
    return fmt::format("downloaded {:.1f} MB by pip", result.wheel_bytes / 1e6);
  }
  std::string how = "only what the SDK keeps";
  if (!result.ranged) {
    how = "the whole wheel";
    how += result.ranges_ignored ? ": the server does not serve byte ranges" : "";
    how += result.resumed_from > 0 ? fmt::format(", resumed at {:.1f} MB", result.resumed_from / 1e6) : "";
    how += result.whole_requests > 1 ? ", resumed after a cut" : "";
  }
  return fmt::format("downloaded {:.1f} MB of {:.1f} MB in {} request{} ({})", result.wire_bytes / 1e6,
                     result.wheel_bytes / 1e6, result.requests, result.requests == 1 ? "" : "s", how);
}

// opkit.sdk-fetch/1: the SDK's facts and how its bytes came.
Json
fetch_json(const sdk::FetchResult& result)
{
  return {{"schema", "opkit.sdk-fetch/1"},
          {"sdk", sdk::to_json(result.sdk)},
          {"already_present", result.already_present},
          {"offline", result.offline},
          {"wheel", result.wheel},
          {"source", result.source},
          {"ranged", result.ranged},
          {"ranges_ignored", result.ranges_ignored},
          {"wheel_bytes", result.wheel_bytes},
          {"wire_bytes", result.wire_bytes},
          {"sdk_bytes", result.sdk_bytes},
          {"resumed_from", result.resumed_from},
          {"requests", result.requests},
          {"whole_requests", result.whole_requests}};
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
      fmt::print("{}\n", json_text(sdk::to_json(sdk), 2));
    } else {
      print_sdk_line(sdk);
    }
    exit_code = 0;
  });

  CLI::App* list = sdk_app->add_subcommand("list", "List the imported SDKs");
  add_json_flag(list, global.json, "opkit.sdk-list/1", "Print JSON");
  // Hidden, for the shell completions: each SDK's id and version, a line each.
  static std::string ids_of;
  list->add_option("--ids", ids_of, "The ids and versions of FRAMEWORK's SDKs (all: every one), a line each")
    ->group("");
  list->callback([&global, &exit_code] {
    if (!ids_of.empty()) {
      print_sdk_ids(ids_of);
    } else {
      run_sdk_list(global);
    }
    exit_code = 0;
  });
  add_json_flag(add, global.json, "opkit.sdk/1", "Print the imported SDK's facts as JSON");

  static sdk::FetchOptions fetch;
  CLI::App* fetch_cmd =
    sdk_app->add_subcommand("fetch", "Download a TensorFlow or PyTorch SDK from a package index and import it");
  fetch_cmd->add_option("requirement", fetch.requirement, "tensorflow==VERSION or torch==VERSION")->required();
  fetch_cmd
    ->add_option("--variant", fetch.variant,
                 "cpu or gpu (the CUDA build; default: cpu for TensorFlow, gpu for torch, whose PyPI wheels "
                 "are CUDA builds)")
    ->type_name("cpu|gpu");
  fetch_cmd->add_option(
    "--index-url", fetch.index_url,
    "A PEP 503/691 index (default: $OPKIT_INDEX_URL, pip's configuration, else pip's default index; pip download "
    "when pip's configuration turns on no-index)");
  add_json_flag(fetch_cmd, global.json, "opkit.sdk-fetch/1", "Print what was fetched as JSON");
  fetch_cmd->callback([&global, &exit_code] {
    sdk::FetchResult result = sdk::fetch_sdk(fetch);
    exit_code = 0;
    if (global.json) {
      fmt::print("{}\n", json_text(fetch_json(result), 2));
      return;
    }
    if (result.offline) {
      fmt::print("{}: in the store ({:.1f} MB); the index could not be reached to ask for a newer one\n", result.sdk.id,
                 result.sdk_bytes / 1e6);
    } else if (result.already_present) {
      fmt::print("{}: already in the store ({:.1f} MB)\n", result.sdk.id, result.sdk_bytes / 1e6);
    } else {
      fmt::print("{}: fetched {} from {}, {}, kept {:.1f} MB\n", result.sdk.id, result.wheel, result.source,
                 describe_download(result), result.sdk_bytes / 1e6);
    }
    print_sdk_line(result.sdk);
  });

  static std::string which;
  CLI::App* info = sdk_app->add_subcommand("info", "Show one SDK's facts");
  offer_command(info->add_option("sdk", which, "An SDK id (tensorflow-2.10.1) or version (2.10)")->required(),
                "sdk list --ids all");
  add_json_flag(info, global.json, "opkit.sdk/1", "Print JSON");
  info->callback([&global, &exit_code] {
    sdk::Sdk sdk = sdk::find_sdk(which);
    Json json = sdk::to_json(sdk);
    json["size_bytes"] = fs::disk_usage(sdk.root).bytes;
    if (sdk.cuda.is_cuda_build) {
      json["cuda_toolkit"] = cuda_toolkit_json(sdk);
    }
    if (global.json) {
      fmt::print("{}\n", json_text(json, 2));
    } else {
      // Each derived fact with where it came from ("from the wheel's ...", "from the table, range >=2.12").
      const std::map<std::string, std::string> fact_of = {
        {"version", "version"},    {"cxx_standard", "cxx_standard"},           {"cxx11_abi", "cxx11_abi"},
        {"wheel_tag", "platform"}, {"framework_library", "framework_library"}, {"requires_python", "python"}};
      for (const auto& [key, value] : json.items()) {
        if (key == "schema" || key == "origins") {
          continue;
        }
        std::string text = value.is_string() ? value.get<std::string>() : json_text(value);
        if (key == "size_bytes") {
          fmt::print("{:<18} {} on disk\n", "size", fs::human_bytes(value.get<uint64_t>()));
          continue;
        }
        if (key == "cuda") {
          text = cuda_words(sdk);
        }
        if (value.is_array()) { // warnings, defines
          text = value.empty() ? "none" : join(value.get<std::vector<std::string>>(), "; ");
        }
        if (key == "cuda_toolkit") { // "CUDA 11.8: opkit's CUDA 11.8 (...), fetched by the first build"
          text =
            value.contains("error")
              ? value["error"].get<std::string>()
              : fmt::format("CUDA {}: {}{}", value["release"].get<std::string>(), value["origin"].get<std::string>(),
                            value["present"].get<bool>() ? "" : ", fetched by the first build that needs it");
        }
        auto fact = fact_of.find(key);
        auto origin = fact == fact_of.end() ? sdk.origins.end() : sdk.origins.find(fact->second);
        if (origin != sdk.origins.end()) {
          text += fmt::format("  (from {})", origin->second);
        }
        fmt::print("{:<18} {}\n", key, text);
      }
    }
    exit_code = 0;
  });

  static std::string victim;
  CLI::App* remove = sdk_app->add_subcommand("remove", "Remove an SDK from the store");
  offer_command(remove->add_option("sdk", victim, "An SDK id (tensorflow-2.10.1) or version (2.10)")->required(),
                "sdk list --ids all");
  add_json_flag(remove, global.json, "opkit.sdk-remove/1", "Print what was removed as JSON");
  remove->callback([&global, &exit_code] {
    sdk::Sdk sdk = sdk::find_sdk(victim);
    uint64_t bytes = fs::disk_usage(sdk.root).bytes;
    sdk::remove_sdk(sdk);
    if (global.json) {
      fmt::print("{}\n", json_text({{"schema", "opkit.sdk-remove/1"},
                                    {"removed", sdk.id},
                                    {"version", sdk.version.str()},
                                    {"path", sdk.root.string()},
                                    {"bytes", bytes}},
                                   2));
    } else {
      fmt::print("removed {}\n", sdk.id);
    }
    exit_code = 0;
  });

  static bool downloads = false;
  CLI::App* gc = sdk_app->add_subcommand(
    "gc", "Remove what interrupted imports and fetches left behind, stale precompiled headers, probes of removed "
          "SDKs and the CPU findings of libraries no longer there");
  gc->add_flag("--downloads", downloads,
               "Also drop partial downloads kept for resuming and whole wheels kept for a release's venv");
  add_json_flag(gc, global.json, "opkit.sdk-gc/1", "Print what was removed as JSON");
  gc->callback([&global, &exit_code] {
    sdk::GcReport report = sdk::collect_garbage(downloads);
    builder::collect_stale_pchs(report);
    cpu::collect_gone_findings(report);
    exit_code = 0;
    if (global.json) {
      fmt::print("{}\n",
                 json_text({{"schema", "opkit.sdk-gc/1"}, {"removed", report.removed}, {"bytes", report.bytes}}, 2));
      return;
    }
    for (const std::string& path : report.removed) {
      fmt::print("removed {}\n", path);
    }
    fmt::print("freed {}\n", fs::human_bytes(report.bytes));
  });

  CLI::App* usage = sdk_app->add_subcommand(
    "usage", "Show what the store costs on disk: each part's size, its path and what removes it");
  add_json_flag(usage, global.json, "opkit.sdk-usage/1", "Print the report as JSON");
  usage->callback([&global, &exit_code] {
    sdk::StoreReport report = sdk::store_report();
    if (global.json) {
      fmt::print("{}\n", json_text(sdk::to_json(report), 2));
    } else {
      print_store_report(report);
    }
    exit_code = 0;
  });
}

} // namespace opkit::cli
