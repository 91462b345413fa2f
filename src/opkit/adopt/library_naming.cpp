#include "opkit/adopt/library_naming.hpp"

#include "opkit/adopt/build_files.hpp"
#include "opkit/project/names.hpp"
#include "opkit/util/error.hpp"
#include "opkit/util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace opkit::adopt {

using build_files_detail::parent_of;

std::string
stem_of(const std::string& output)
{
  std::string stem = ends_with(output, ".so") ? output.substr(0, output.size() - 3) : output;
  stem = starts_with(stem, "lib") ? stem.substr(3) : starts_with(stem, "_") ? stem.substr(1) : stem;
  stem = ends_with(stem, "_so") ? stem.substr(0, stem.size() - 3) : stem;
  return ends_with(stem, "_ops")  ? stem.substr(0, stem.size() - 4)
         : ends_with(stem, "_op") ? stem.substr(0, stem.size() - 3)
                                  : stem;
}

std::string
name_of(const std::string& output)
{
  std::string stem = output.substr(0, output.size() - 3);
  stem = ends_with(stem, "_so") ? stem.substr(0, stem.size() - 3) : stem; // tf_sampling_so.so
  return starts_with(stem, "lib") ? stem.substr(3) : stem;
}

std::vector<std::string>
library_names(const std::vector<std::vector<std::string>>& parts, const std::vector<std::string>& where,
              std::vector<std::string>& notes)
{
  std::vector<size_t> used(parts.size(), 1);
  std::vector<std::string> names(parts.size());
  for (bool clash = true; clash;) {
    for (size_t i = 0; i < parts.size(); ++i) {
      std::vector<std::string> tail(parts[i].end() - static_cast<long>(used[i]), parts[i].end());
      names[i] = snake_name(join(tail, "_"), "library name", where[i], &notes);
    }
    clash = false;
    std::vector<size_t> next = used;
    for (size_t i = 0; i < parts.size(); ++i) {
      for (size_t j = 0; j < parts.size(); ++j) {
        if (i == j || names[i] != names[j]) {
          continue;
        }
        if (used[i] == parts[i].size() && used[j] == parts[j].size()) {
          fail(ExitCode::usage, "{} and {} give one library name '{}' (pass --single-library NAME)", where[i], where[j],
               names[i]);
        }
        next[i] = std::min(used[i] + 1, parts[i].size());
        clash = true;
      }
    }
    used = next;
  }
  return names;
}

std::vector<Mention>
so_mentions(const std::vector<TreeText>& python)
{
  auto name_char = [](char c) { return is_identifier_char(c) || c == '-' || c == '.'; };
  std::vector<Mention> found;
  for (const TreeText& file : python) {
    const std::string& text = file.text;
    for (size_t at = text.find(".so"); at != std::string::npos; at = text.find(".so", at + 1)) {
      size_t begin = at;
      while (begin > 0 && name_char(text[begin - 1])) {
        --begin;
      }
      while (begin < at && (text[begin] == '.' || text[begin] == '-')) {
        ++begin;
      }
      bool whole =
        at + 3 == text.size() || !(std::isalnum(static_cast<unsigned char>(text[at + 3])) || text[at + 3] == '_');
      if (begin < at && whole) {
        found.push_back({text.substr(begin, at + 3 - begin), file.path});
      }
    }
  }
  return found;
}

std::optional<Mention>
python_output(const std::string& library, const std::vector<std::vector<std::string>>& groups, size_t index,
              const std::vector<Mention>& mentions, std::string& clue)
{
  std::vector<std::string> bases = {library};
  bases.push_back(ends_with(library, "_ops") ? library.substr(0, library.size() - 4) : library + "_ops");
  for (const std::string& base : bases) {
    for (const std::string& name : {"_" + base + "_ops.so", "_" + base + ".so", "lib" + base + ".so"}) {
      auto found = std::find_if(mentions.begin(), mentions.end(), [&](const Mention& m) { return m.name == name; });
      if (found != mentions.end()) {
        return *found;
      }
    }
  }
  auto words = [](std::string folder) {
    std::replace_if(
      folder.begin(), folder.end(), [](char c) { return c == '/' || c == '-' || c == '.'; }, '_');
    return "_" + folder + "_";
  };
  std::optional<Mention> match;
  for (const Mention& mention : mentions) {
    std::string stem = stem_of(mention.name);
    std::string key = "_" + stem + "_";
    auto holds = [&](const std::vector<std::string>& group) {
      return words(group.front()).find(key) != std::string::npos;
    };
    bool elsewhere = std::count_if(groups.begin(), groups.end(), holds) > 1;
    if (stem.empty() || !holds(groups[index]) || elsewhere) {
      continue;
    }
    if (match && match->name != mention.name) {
      return std::nullopt; // two candidates: no guess
    }
    match = mention;
  }
  if (match) {
    clue = "; its name matches the library's folder";
    return match;
  }
  std::optional<Mention> beside;
  for (const Mention& mention : mentions) {
    std::string folder = parent_of(mention.file);
    auto holds = [&](const std::vector<std::string>& group) {
      return std::find(group.begin(), group.end(), folder) != group.end();
    };
    if (!holds(groups[index]) || std::count_if(groups.begin(), groups.end(), holds) > 1) {
      continue;
    }
    if (beside && beside->name != mention.name) {
      return std::nullopt; // two candidates: no guess
    }
    beside = mention;
  }
  clue = beside ? "; it sits beside the library's sources" : "";
  return beside;
}

namespace {

// A name opkit's rules accept, made of one they refuse (already in snake_case
// words): words starting with a digit go behind the others
// ("3d_interpolation": interpolation_3d), a name of such words alone gets
// "op_" before it, a reserved word "_op" after it, a long one is cut. Empty
// when it is still refused.
std::string
repaired_name(const std::string& name)
{
  std::vector<std::string> leading, rest;
  for (const std::string& word : split(name, '_')) {
    if (word.empty()) {
      continue;
    }
    (rest.empty() && !std::isalpha(static_cast<unsigned char>(word[0])) ? leading : rest).push_back(word);
  }
  rest.insert(rest.end(), leading.begin(), leading.end());
  std::string repaired = join(rest, "_");
  if (!repaired.empty() && !std::isalpha(static_cast<unsigned char>(repaired[0]))) {
    repaired = "op_" + repaired;
  }
  if (repaired.size() > 64) {
    repaired.resize(64);
    while (!repaired.empty() && repaired.back() == '_') {
      repaired.pop_back();
    }
  }
  if (repaired.empty()) {
    return "";
  }
  for (const std::string& candidate : {repaired, repaired + "_op"}) { // a reserved word: "class_op"
    if (project::name_problem(candidate).empty()) {
      return candidate;
    }
  }
  return "";
}

} // namespace

// A folder's name as a snake_case library or project name.
std::string
snake_name(std::string name, const char* what, const std::string& folder, std::vector<std::string>* notes)
{
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  }
  std::string collapsed;
  for (char c : name) {
    bool separator = c == '_' || c == '-';
    if (!(separator && (collapsed.empty() || collapsed.back() == '_'))) {
      collapsed += separator ? '_' : c;
    }
  }
  while (!collapsed.empty() && collapsed.back() == '_') {
    collapsed.pop_back();
  }
  project::ProjectNames names;
  std::string problem = project::name_problem(collapsed, &names);
  if (problem.empty()) {
    return names.snake;
  }
  // A tree's own folder and file names are taken as they are: one opkit's rules
  // refuse is made into one they accept, and the note says so.
  if (std::string repaired = repaired_name(collapsed); !repaired.empty() && notes != nullptr) {
    project::name_problem(repaired, &names); // valid: repaired_name checked it
    std::string note =
      fmt::format("note: {}: '{}' is no valid {} ({}); named '{}'", folder, collapsed, what, problem, names.snake);
    if (std::find(notes->begin(), notes->end(), note) == notes->end()) {
      notes->push_back(std::move(note));
    }
    return names.snake;
  }
  try {
    return project::derive_names(collapsed, what).snake;
  } catch (const Error& e) {
    throw Error(ExitCode::usage, fmt::format("{}: {}", folder, e.what()),
                std::string(what) == "project name" ? "pass --name NAME" : "pass --single-library NAME");
  }
}

} // namespace opkit::adopt
