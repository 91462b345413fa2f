#include "opkit/cli/run.hpp"

#include "opkit/cli/commands.hpp"
#include "opkit/cli/version.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/secrets.hpp"
#include "opkit/util/strings.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <filesystem>

namespace opkit::cli {

namespace {

// An error line's limit: messages clip untrusted names themselves; this
// stops any that does not from printing a 65 KB line.
constexpr size_t k_max_error_bytes = 4096;

// Every subcommand's callback, at any depth, taken out: parsing runs nothing.
void
drop_callbacks(CLI::App& app)
{
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    sub->final_callback(std::function<void()>{});
    sub->parse_complete_callback(std::function<void()>{});
    drop_callbacks(*sub);
  }
}

} // namespace

bool
parse_only_requested()
{
  const char* value = std::getenv("OPKIT_PARSE_ONLY");
  return value != nullptr && std::string(value) == "1";
}

std::vector<std::string>
split_versions(const std::vector<std::string>& values, const std::string& flag)
{
  std::vector<std::string> result;
  for (const std::string& value : values) {
    for (const std::string& part : split(value, ',')) {
      // `--tf ""` or `--tf 1.12,` is a mistake (an unset variable), not "the defaults".
      if (trim(part).empty()) {
        fail(ExitCode::usage,
             "--{} '{}': an empty version (give versions separated by commas, or leave --{} out for opkit.yaml's "
             "targets)",
             flag, escape_clipped(value, 100), flag);
      }
      result.push_back(trim(part));
    }
  }
  return result;
}

int
run(int argc, char** argv)
{
  CLI::App app{"opkit: build, check and ship custom ops for every framework version you target"};
  app.name("opkit");
  // --version with -v/--verbose anywhere on the line adds the build facts.
  app.set_version_flag("--version", [argc, argv] {
    bool verbose = false;
    for (int i = 1; i < argc; ++i) {
      verbose = verbose || std::string(argv[i]) == "-v" || std::string(argv[i]) == "--verbose";
    }
    std::string text = version_text(verbose);
    return text.substr(0, text.size() - 1); // CLI11 adds the newline
  });
  app.require_subcommand(1);
  app.fallthrough(); // global flags (-v, -q, -C) also work after the subcommand
  GlobalOptions global;
  int exit_code = 0;
  // OPKIT_PARSE_ONLY=1 (hidden, for checking the docs' commands): parse the
  // arguments with this very command tree and run nothing, not even -C: exit 0
  // when they parse, 2 with the usual usage line when they do not.
  const bool parse_only = parse_only_requested();
  app.add_option_function<std::string>(
    "-C,--directory",
    [parse_only](const std::string& dir) {
      if (parse_only) {
        return;
      }
      std::error_code ec;
      std::filesystem::current_path(dir, ec);
      if (ec) {
        fail(ExitCode::usage, "{}: cannot change into folder: {}", dir, ec.message());
      }
    },
    "Run as if started in DIR (the project folder)");
  app.add_flag_callback(
    "-v,--verbose", [] { set_verbosity(Verbosity::verbose); }, "Log every command opkit runs");
  app.add_flag_callback(
    "-q,--quiet", [] { set_verbosity(Verbosity::quiet); }, "Only print results and errors");
  add_sdk_command(app, global, exit_code);
  add_new_command(app, global, exit_code);
  add_init_command(app, global, exit_code);
  add_build_command(app, global, exit_code);
  add_test_command(app, global, exit_code);
  add_check_command(app, global, exit_code);
  add_profile_command(app, global, exit_code);
  add_package_command(app, global, exit_code);
  add_publish_command(app, global, exit_code);
  add_clean_command(app, global, exit_code);
  add_help_command(app, global, exit_code);
  add_completion_command(app, global, exit_code);
  add_config_command(app, global, exit_code);
  if (argc <= 1) { // `opkit` alone: the help, exit 0, as cargo and pip do
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (parse_only) {
    drop_callbacks(app);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "opkit: error: %s\n", usage_error_line(app, e).c_str());
    return static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    std::fflush(stdout);
    // One line, so scripts and CI logs show the whole story in one place.
    // Paths and names in it may come from untrusted files: escaped, so the line
    // stays one printable line.
    std::string hint = e.hint().empty() ? "" : " (" + e.hint() + ")";
    std::fprintf(stderr, "opkit: error: %s\n",
                 escape_clipped(mask_secrets(e.what() + hint), k_max_error_bytes).c_str());
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "opkit: error: out of memory\n");
    return static_cast<int>(ExitCode::system);
  } catch (const std::exception& e) {
    // A bug: every expected failure is an opkit::Error. Still one line, not an abort.
    std::fflush(stdout);
    std::fprintf(stderr, "opkit: error: internal error: %s (please report it)\n",
                 escape_clipped(mask_secrets(e.what()), k_max_error_bytes).c_str());
    return static_cast<int>(ExitCode::system);
  }
  return exit_code;
}

} // namespace opkit::cli
