#include "opkit/cli/run.hpp"

#include "opkit/cli/commands.hpp"
#include "opkit/cli/help_format.hpp"
#include "opkit/cli/json_failure.hpp"
#include "opkit/cli/junit_reports.hpp"
#include "opkit/cli/version.hpp"
#include "opkit/util/ci_annotations.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/log.hpp"
#include "opkit/util/progress.hpp"
#include "opkit/util/secrets.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

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

using AddCommand = void (*)(CLI::App&, GlobalOptions&, int&);

struct Command
{
  const char* name;
  AddCommand add;
  bool describes_all; // help and completion speak of every command: the whole tree is built for them
};

constexpr Command k_commands[] = {
  {"sdk", add_sdk_command, false},         {"new", add_new_command, false},
  {"init", add_init_command, false},       {"build", add_build_command, false},
  {"test", add_test_command, false},       {"check", add_check_command, false},
  {"profile", add_profile_command, false}, {"package", add_package_command, false},
  {"publish", add_publish_command, false}, {"clean", add_clean_command, false},
  {"help", add_help_command, true},        {"completion", add_completion_command, true},
  {"config", add_config_command, false},
};

// The command an argument line runs: its first argument that is neither a
// global option nor -C's folder; nullptr when that is no command's name (a
// typo is answered by the whole tree, with its suggestions).
const Command*
named_command(int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "-C" || argument == "--directory") {
      ++i;
      continue;
    }
    if (starts_with(argument, "-")) {
      continue;
    }
    for (const Command& command : k_commands) {
      if (argument == command.name) {
        return command.describes_all ? nullptr : &command;
      }
    }
    return nullptr;
  }
  return nullptr;
}

// Only --version (with -v, -q): no command is needed to answer it.
bool
version_only(int argc, char** argv)
{
  bool version = false;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    version = version || argument == "--version";
    if (argument != "--version" && argument != "-v" && argument != "--verbose" && argument != "-q"
        && argument != "--quiet") {
      return false;
    }
  }
  return version;
}

// -v or --verbose anywhere on the line.
bool
verbose_on_line(int argc, char** argv)
{
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "-v" || std::string(argv[i]) == "--verbose") {
      return true;
    }
  }
  return false;
}

// --json anywhere before `--`: a usage error may stop the parse before the flag.
bool
json_on_line(int argc, char** argv)
{
  for (int i = 1; i < argc && std::string(argv[i]) != "--"; ++i) {
    if (std::string(argv[i]) == "--json") {
      return true;
    }
  }
  return false;
}

// -C's lines, as make -C prints them: editors (Emacs, vim) resolve the relative
// names printed between them against the folder. "Entering" comes before the
// first line opkit writes on stderr (none before an error line alone: it stays
// one line); "Leaving" when run returns, after the error line, if "Entering" came.
struct EnteredFolderLines
{
  ~EnteredFolderLines()
  {
    if (progress::first_line_written()) {
      std::fflush(stdout);
      std::fprintf(stderr, "opkit: Leaving directory '%s'\n", entered_folder().c_str());
    }
  }
};

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
  // --version (with -v/--verbose anywhere on the line, the build facts too) is
  // answered before any command is built: it is the start alone.
  if (version_only(argc, argv)) {
    std::fputs(version_text(verbose_on_line(argc, argv)).c_str(), stdout);
    return 0;
  }
  CLI::App app{"opkit: build, check and ship custom ops for every framework version you target"};
  app.name("opkit");
  app.formatter(help_formatter()); // opkit's words; every command added below takes it
  // --version with -v/--verbose anywhere on the line adds the build facts.
  app.set_version_flag("--version", [argc, argv] {
    std::string text = version_text(verbose_on_line(argc, argv));
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
  EnteredFolderLines leaving; // its line, when run returns
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
      set_entered_folder(std::filesystem::current_path(ec).string());
      progress::set_first_line(fmt::format("opkit: Entering directory '{}'", entered_folder()));
    },
    "Run as if started in DIR (the project folder)");
  app.add_flag_callback(
    "-v,--verbose", [] { set_verbosity(Verbosity::verbose); }, "Log every command opkit runs");
  app.add_flag_callback(
    "-q,--quiet", [] { set_verbosity(Verbosity::quiet); }, "Only print results and errors");
  // Only the command the line names is built (each reads its tables as it
  // is built: the framework tables for --tf and --torch, the templates...):
  // the whole tree for help, completion, a line without a command, a typo.
  if (const Command* named = named_command(argc, argv)) {
    named->add(app, global, exit_code);
  } else {
    for (const Command& command : k_commands) {
      command.add(app, global, exit_code);
    }
  }
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
    std::string line = usage_error_line(app, e);
    print_json_failure(app, json_on_line(argc, argv), ExitCode::usage, line, "");
    std::fprintf(stderr, "opkit: error: %s\n", line.c_str());
    return static_cast<int>(ExitCode::usage);
  } catch (const Error& e) {
    std::fflush(stdout);
    // --json: the failure document ends stdout (json_failure.hpp).
    print_json_failure(app, false, e.code(), mask_secrets(e.what()).substr(0, k_max_error_bytes),
                       mask_secrets(e.hint()));
    // One line, so scripts and CI logs show the whole story in one place.
    // Paths and names in it may come from untrusted files: escaped, so the line
    // stays one printable line.
    std::string hint = e.hint().empty() ? "" : " (" + e.hint() + ")";
    std::fprintf(stderr, "opkit: error: %s\n",
                 escape_clipped(mask_secrets(e.what() + hint), k_max_error_bytes).c_str());
    // --junit FILE: the report CI reads holds the failure (junit_reports.hpp).
    write_junit_failure(app, escape_clipped(mask_secrets(e.what() + hint), k_max_error_bytes));
    // In a GitHub workflow, an error naming a file's line also annotates that line.
    std::fputs(github_error_annotation(escape_clipped(mask_secrets(e.what()), k_max_error_bytes)).c_str(), stderr);
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    print_json_failure(app, false, ExitCode::system, "out of memory", "");
    std::fprintf(stderr, "opkit: error: out of memory\n");
    return static_cast<int>(ExitCode::system);
  } catch (const std::exception& e) {
    // A bug: every expected failure is an opkit::Error. Still one line, not an abort.
    std::fflush(stdout);
    print_json_failure(app, false, ExitCode::system, "internal error: " + mask_secrets(e.what()), "please report it");
    std::fprintf(stderr, "opkit: error: internal error: %s (please report it)\n",
                 escape_clipped(mask_secrets(e.what()), k_max_error_bytes).c_str());
    return static_cast<int>(ExitCode::system);
  }
  return exit_code;
}

} // namespace opkit::cli
