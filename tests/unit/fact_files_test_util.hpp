#pragma once

// The files of the official wheels that opkit derives an SDK's facts from,
// as scripts/fetch-fact-files.py lays them out in $OPKIT_FACT_FILES (the
// ctest entry unit.real_wheels sets it, after its fixture fetched them).

#include "opkit/util/fs.hpp"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

// $OPKIT_FACT_FILES/<release> ("torch-2.15.0", "tensorflow-cpu-2.21.0"); a
// test failure naming the install step when it is not there.
inline std::filesystem::path
real_release(const std::string& release)
{
  const char* root = std::getenv("OPKIT_FACT_FILES");
  std::filesystem::path folder = root != nullptr ? std::filesystem::path(root) / release : std::filesystem::path();
  std::error_code ec;
  if (root == nullptr || !std::filesystem::is_regular_file(folder / "complete", ec)) {
    ADD_FAILURE() << "no fact files of " << release << " in $OPKIT_FACT_FILES (" << (root != nullptr ? root : "unset")
                  << "): run python3 scripts/fetch-fact-files.py";
  }
  return folder;
}

// A file's text, "" when it is not there (a release that lacks the file).
inline std::string
read_text(const std::filesystem::path& path)
{
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) ? opkit::fs::read_file(path) : std::string();
}
