#include "opkit/builder/pch.hpp"

#include "opkit/builder/plan.hpp"
#include "opkit/builder/toolchain.hpp"
#include "opkit/sdk/store.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/format.hpp"
#include "opkit/util/fs.hpp"
#include "opkit/util/hash.hpp"
#include "opkit/util/json.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/process.hpp"
#include "opkit/util/progress.hpp"
#include "opkit/util/strings.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>

namespace opkit::builder {

namespace stdfs = std::filesystem;

namespace {

const char* const k_pch_schema = "opkit.pch/1";

std::string
render_header(const project::FrameworkFlags& flags)
{
  std::string text = "// Made by opkit build: the framework headers nearly every op includes, precompiled.\n";
  for (const std::string& define : flags.pch_defines) {
    text += "#define " + define + "\n";
  }
  for (const std::string& header : flags.pch_headers) {
    text += "#include \"" + header + "\"\n";
  }
  return text;
}

// The line without its comments; `in_comment` carries a /* */ across lines.
std::string
strip_comments(std::string_view line, bool& in_comment)
{
  std::string result;
  for (size_t i = 0; i < line.size(); ++i) {
    if (in_comment) {
      if (line.compare(i, 2, "*/") == 0) {
        in_comment = false;
        ++i;
      }
    } else if (line.compare(i, 2, "/*") == 0) {
      in_comment = true;
      ++i;
    } else if (line.compare(i, 2, "//") == 0) {
      break;
    } else {
      result += line[i];
    }
  }
  return result;
}

// #include "tensorflow/..." or <torch/...>: a header under one of the framework's prefixes.
bool
is_framework_include(const std::string& argument, const std::vector<std::string>& prefixes)
{
  return argument.size() > 1 && (argument[0] == '"' || argument[0] == '<')
         && std::any_of(prefixes.begin(), prefixes.end(),
                        [&](const std::string& prefix) { return starts_with(argument.substr(1), prefix); });
}

stdfs::path
lock_path(const std::string& sdk_id, const std::string& key)
{
  return sdk::opkit_home() / "locks" / fmt::format("pch-{}-{}.lock", sdk_id, key);
}

stdfs::path
failed_marker(const PchSpec& spec)
{
  return spec.dir / "failed.log";
}

} // namespace

std::string
compiler_identity(const std::string& compiler)
{
  std::error_code ec;
  stdfs::path real = stdfs::canonical(compiler, ec);
  if (ec) {
    real = compiler;
  }
  return real.string() + "@" + fs::file_stamp(real);
}

PchSpec
plan_pch(const sdk::Sdk& sdk, const project::FrameworkFlags& flags, const std::string& compiler,
         const std::string& identity, const stdfs::path& store)
{
  PchSpec spec;
  spec.sdk_id = sdk.id;
  spec.framework = project::FrameworkTable::get(sdk.framework).display_name();
  spec.compiler = compiler;
  spec.compiler_identity = identity;
  spec.flags = sdk_compile_flags(sdk, flags, {});
  spec.defines = flags.pch_defines;
  spec.header_text = render_header(flags);
  std::string material = fmt::format("{}\n{}\n{}\n{}\n{}", k_pch_schema, identity,
                                     fs::file_stamp(sdk.root / "sdk.json"), join(spec.flags, "\x1f"), spec.header_text);
  spec.key = fnv1a64_hex(material); // an SDK imported again under the same id gets new PCHs too
  spec.dir = store / sdk.id / spec.key;
  return spec;
}

bool
source_can_use_pch(std::string_view text, const std::vector<std::string>& pch_defines,
                   const std::vector<std::string>& include_prefixes)
{
  bool in_comment = false;
  bool seen_include = false;
  bool includes_framework = false;
  for (const std::string& raw : split(text, '\n')) {
    std::string directive = trim(strip_comments(raw, in_comment));
    if (directive.empty() || directive[0] != '#') {
      continue;
    }
    directive = trim(std::string_view(directive).substr(1));
    std::string name = directive.substr(0, directive.find_first_of(" \t<\""));
    std::string argument = trim(std::string_view(directive).substr(name.size()));
    if (name == "include") {
      seen_include = true;
      includes_framework = includes_framework || is_framework_include(argument, include_prefixes);
    } else if (!seen_include && name == "undef") {
      return false;
    } else if (!seen_include && name == "define") {
      // Only a PCH define, exactly as the PCH has it (no value), may come first.
      if (std::find(pch_defines.begin(), pch_defines.end(), argument) == pch_defines.end()) {
        return false;
      }
    }
  }
  return includes_framework;
}

PchOutcome
ensure_pch(const PchSpec& spec)
{
  std::error_code ec;
  if (stdfs::exists(spec.marker(), ec)) {
    return {true, 0};
  }
  fs::FileLock lock(lock_path(spec.sdk_id, spec.key));
  if (stdfs::exists(spec.marker(), ec)) {
    return {true, 0}; // a concurrent build made it while we waited
  }
  if (stdfs::exists(failed_marker(spec), ec)) {
    log_debug("{}: the precompiled header failed before ({}); compiling plainly", spec.sdk_id, failed_marker(spec));
    return {false, 0};
  }
  fs::create_dirs(spec.dir);
  fs::write_file_atomic(spec.header(), spec.header_text);
  stdfs::path partial = spec.dir / fmt::format(".opkit_pch.h.gch.{}", ::getpid());
  std::vector<std::string> argv = {spec.compiler};
  argv.insert(argv.end(), spec.flags.begin(), spec.flags.end());
  argv.insert(argv.end(), {"-x", "c++-header", spec.header().string(), "-o", partial.string()});
  log_info("precompiling {}'s headers for {} (once per SDK and compiler) ...", spec.framework, spec.sdk_id);
  progress::Step step(fmt::format("precompiling {}'s headers for {}", spec.framework, spec.sdk_id));
  ProcessResult result = run_process(argv, compiler_process_options());
  double seconds = step.seconds();
  if (result.exit_code != 0) {
    stdfs::remove(partial, ec);
    fs::write_file_atomic(failed_marker(spec), result.out + result.err);
    log_warning("{}: cannot precompile {}'s headers (see {}); compiling plainly", spec.sdk_id, spec.framework,
                failed_marker(spec));
    return {false, seconds};
  }
  stdfs::rename(partial, spec.gch(), ec);
  if (ec) {
    fail(ExitCode::system, "{}: cannot rename into place: {}", spec.gch(), ec.message());
  }
  Json marker = {{"schema", k_pch_schema},
                 {"sdk", spec.sdk_id},
                 {"compiler", spec.compiler},
                 {"compiler_identity", spec.compiler_identity},
                 {"flags", spec.flags}};
  fs::write_file_atomic(spec.marker(), json_text(marker, 2) + "\n");
  return {true, seconds};
}

void
collect_stale_pchs(sdk::GcReport& report)
{
  auto drop = [&report](const stdfs::path& path) { report.drop(path); };
  std::map<std::string, sdk::Sdk> sdks;
  for (sdk::Sdk& sdk : sdk::list_sdks()) {
    sdks.emplace(sdk.id, std::move(sdk));
  }
  std::error_code ec;
  for (const auto& sdk_dir : stdfs::directory_iterator(sdk::pch_store_dir(), ec)) {
    auto sdk = sdks.find(sdk_dir.path().filename().string());
    if (sdk == sdks.end()) {
      drop(sdk_dir.path());
      continue;
    }
    for (const auto& entry : stdfs::directory_iterator(sdk_dir.path(), ec)) {
      std::string key = entry.path().filename().string();
      // Waits for a build making this PCH, so nothing in use disappears.
      fs::FileLock lock(lock_path(sdk->first, key));
      bool current = false;
      try {
        // Current: what this opkit would plan today for its compiler, as that compiler is now.
        std::string compiler = Json::parse(fs::read_file(entry.path() / "pch.json")).at("compiler").get<std::string>();
        project::FrameworkFlags flags =
          project::FrameworkTable::get(sdk->second.framework).flags_for(sdk->second.version);
        current = plan_pch(sdk->second, flags, compiler, compiler_identity(compiler), sdk::pch_store_dir()).key == key;
      } catch (const std::exception&) {
        current = false; // unfinished, failed or unreadable
      }
      if (!current) {
        drop(entry.path());
      }
    }
  }
}

} // namespace opkit::builder
