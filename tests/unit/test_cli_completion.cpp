#include "opkit/cli/command_tree.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

using opkit::cli::CommandInfo;
using opkit::cli::OptionInfo;

namespace {

// opkit [-C DIR] [-v] {sdk {add WHEEL, list [--json]}, build [-j N] [--runtime R], completion SHELL}
CommandInfo
sample_tree()
{
  CommandInfo root{"opkit", "opkit", "the tool", {}, {}, {}, true, {}};
  root.options.push_back({{"-C", "--directory"}, "TEXT", "Run in DIR", {}, false, {}});
  root.options.push_back({{"-v", "--verbose"}, "", "Log more", {}, false, {}});
  CommandInfo sdk{"sdk", "opkit sdk", "SDKs", {}, {}, {}, true, {}};
  CommandInfo add{"add", "opkit sdk add", "Import a wheel", {}, {}, {}, false, {}};
  add.positionals.push_back({{"wheel"}, "TEXT", "The wheel", {}, false, {}});
  CommandInfo list{"list", "opkit sdk list", "List them", {}, {}, {}, false, {}};
  list.options.push_back({{"--json"}, "", "As JSON", {}, false, {}});
  sdk.commands = {add, list};
  CommandInfo build{"build", "opkit build", "Build it", {}, {}, {}, false, {}};
  build.options.push_back({{"-j", "--jobs"}, "INT", "Jobs", {}, false, {}});
  build.options.push_back(
    {{"--runtime"}, "TEXT", "Where it runs: [a] 'quoted' -x", {"host", "manylinux2014"}, false, {}});
  CommandInfo completion{"completion", "opkit completion", "Scripts", {}, {}, {}, false, {}};
  completion.positionals.push_back({{"shell"}, "TEXT", "The shell", {"bash", "zsh", "fish"}, false, {}});
  root.commands = {sdk, build, completion};
  return root;
}

bool
contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

} // namespace

TEST(CliCompletion, TreeLooksUpCommandsAndNames)
{
  CommandInfo tree = sample_tree();
  ASSERT_NE(tree.find("sdk"), nullptr);
  EXPECT_EQ(tree.find("sdk")->find("list")->path, "opkit sdk list");
  EXPECT_EQ(tree.find("nope"), nullptr);
  EXPECT_EQ(tree.command_names(), (std::vector<std::string>{"sdk", "build", "completion"}));
  EXPECT_EQ(tree.option_names(), (std::vector<std::string>{"-C", "--directory", "-v", "--verbose"}));
}

TEST(CliCompletion, BashScriptWalksTheTree)
{
  std::string script = opkit::cli::bash_completion(sample_tree());
  EXPECT_TRUE(contains(script, "complete -F _opkit opkit"));
  EXPECT_TRUE(contains(script, "'opkit sdk'|'opkit sdk add'|'opkit sdk list'|'opkit build'|'opkit completion')"))
    << script;
  // Options that take a value make the next word a value; the root's follow any command.
  EXPECT_TRUE(
    contains(script, "*' -C'|*' --directory'|'opkit build -j'|'opkit build --jobs'|'opkit build --runtime') skip=1"))
    << script;
  EXPECT_TRUE(contains(script, "'opkit build --runtime') COMPREPLY=($(compgen -W 'host manylinux2014' -- \"$cur\"))"));
  // A command's options include the global ones; a leaf with a positional completes files.
  EXPECT_TRUE(contains(script, "compgen -W '--json -C --directory -v --verbose'"));
  EXPECT_TRUE(contains(script, "compgen -W 'bash zsh fish'"));
  EXPECT_TRUE(contains(script, "$(compgen -f -- \"$cur\")"));
  EXPECT_FALSE(contains(script, "sdk_command")) << "no names but the tree's";
}

TEST(CliCompletion, BashScriptCompletesWhenRun)
{
  std::string file = ::testing::TempDir() + "opkit-completion-test.bash";
  std::ofstream(file) << opkit::cli::bash_completion(sample_tree());
  auto complete = [&](const std::string& words) {
    std::string command = "bash -c 'source " + file + "; COMP_WORDS=(" + words
                          + "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _opkit; echo \"${COMPREPLY[*]}\"'";
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    char buffer[256];
    while (pipe != nullptr && fgets(buffer, sizeof buffer, pipe) != nullptr) {
      output += buffer;
    }
    if (pipe != nullptr) {
      pclose(pipe);
    }
    return output.substr(0, output.find('\n'));
  };
  EXPECT_EQ(complete("opkit bu"), "build");
  EXPECT_EQ(complete("opkit sdk \"\""), "add list");
  EXPECT_EQ(complete("opkit build --j"), "--jobs");
  EXPECT_EQ(complete("opkit build --runtime m"), "manylinux2014");
  EXPECT_EQ(complete("opkit -C sdk \"\""), "sdk build completion") << "sdk is -C's value here";
  EXPECT_EQ(complete("opkit completion z"), "zsh");
  std::remove(file.c_str());
}

TEST(CliCompletion, ZshScriptQuotesDescriptions)
{
  std::string script = opkit::cli::zsh_completion(sample_tree());
  EXPECT_EQ(script.rfind("#compdef opkit\n", 0), 0u);
  EXPECT_TRUE(contains(script, "_opkit__sdk__add() {"));
  // [, ], : and ' inside a description are escaped for _arguments and the shell.
  EXPECT_TRUE(contains(script, "'--runtime[Where it runs\\: \\[a\\] '\\''quoted'\\'' -x]:TEXT:(host manylinux2014)'"))
    << script;
  EXPECT_TRUE(contains(script, "'*:value:(bash zsh fish)'"));
  EXPECT_TRUE(contains(script, "'*:file:_files'"));
  EXPECT_TRUE(contains(script, "add) _opkit__sdk__add ;;"));
}

TEST(CliCompletion, FishScriptConditionsOnThePath)
{
  std::string script = opkit::cli::fish_completion(sample_tree());
  EXPECT_TRUE(contains(script, "set -g __opkit_commands 'opkit sdk' 'opkit sdk add' 'opkit sdk list'"));
  EXPECT_TRUE(contains(script, "complete -c opkit -n '__opkit_at \\'opkit sdk\\'' -a 'add' -d 'Import a wheel'"))
    << script;
  EXPECT_TRUE(contains(script, "complete -c opkit -s 'C' -l 'directory' -r -F -d 'Run in DIR'")) << script;
  EXPECT_TRUE(contains(script, "-l 'runtime' -x -a 'host manylinux2014' -d 'Where it runs: [a] \\'quoted\\' -x'"));
  EXPECT_TRUE(contains(script, "complete -c opkit -n '__opkit_at \\'opkit completion\\'' -a 'bash zsh fish'"));
}

TEST(CliManPage, RendersEveryCommandInRoff)
{
  std::string page = opkit::cli::man_page(sample_tree(), "0.1.0");
  EXPECT_EQ(page.rfind(".TH OPKIT 1 \"\" \"opkit 0.1.0\"", 0), 0u);
  for (const char* section :
       {".SS \"opkit sdk\"", ".SS \"opkit sdk add\"", ".SS \"opkit sdk list\"", ".SS \"opkit build\"",
        ".SS \"opkit completion\"", ".SH GLOBAL OPTIONS", ".SH EXIT STATUS"}) {
    EXPECT_TRUE(contains(page, section)) << section;
  }
  // Dashes are escaped, the fixed values listed, no line starts with a stray request.
  EXPECT_TRUE(contains(page, "\\fB\\-j\\fR, \\fB\\-\\-jobs\\fR \\fIINT\\fR"));
  EXPECT_TRUE(contains(page, "\\fB\\-\\-runtime\\fR \\fIhost|manylinux2014\\fR"));
  CommandInfo tricky = sample_tree();
  tricky.commands[1].description = ".so files\n'quoted\\";
  std::string escaped = opkit::cli::man_page(tricky, "0.1.0");
  EXPECT_TRUE(contains(escaped, "\n\\&.so files\n\\&'quoted\\e\n")) << escaped;
}

TEST(CliCompletion, ValuesOpkitPrintsAreAskedOfItAtCompletionTime)
{
  CommandInfo tree = sample_tree();
  CommandInfo info{"info", "opkit sdk info", "One SDK", {}, {}, {}, false, {}};
  info.positionals.push_back({{"sdk"}, "SDK", "An SDK", {}, false, "sdk list --ids all"});
  info.options.push_back({{"--tf"}, "VERSION", "A version", {}, false, "sdk list --ids tensorflow"});
  tree.commands.front().commands.push_back(info);
  std::string bash = opkit::cli::bash_completion(tree);
  EXPECT_TRUE(contains(bash, "'opkit sdk info --tf') COMPREPLY=($(compgen -W \"$(\"${COMP_WORDS[0]}\" sdk list --ids "
                             "tensorflow 2>/dev/null)\" -- \"$cur\")) ;;"))
    << bash;
  EXPECT_TRUE(contains(bash, "$(compgen -W \"$(\"${COMP_WORDS[0]}\" sdk list --ids all 2>/dev/null)\" -- \"$cur\")"));
  std::string zsh = opkit::cli::zsh_completion(tree);
  EXPECT_TRUE(contains(zsh, "'*:value:{compadd -- ${(f)\"$(opkit sdk list --ids all 2>/dev/null)\"}}'")) << zsh;
  std::string fish = opkit::cli::fish_completion(tree);
  EXPECT_TRUE(contains(fish, "-l 'tf' -x -a '(opkit sdk list --ids tensorflow 2>/dev/null)'")) << fish;
}
