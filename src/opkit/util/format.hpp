#pragma once

#include <fmt/format.h>

#include <filesystem>

// Paths print unquoted, as users type them (fmt 9's <fmt/std.h> would quote them).
template<>
struct fmt::formatter<std::filesystem::path> : fmt::formatter<std::string_view>
{
  template<typename Context>
  auto format(const std::filesystem::path& path, Context& ctx) const
  {
    return fmt::formatter<std::string_view>::format(path.native(), ctx);
  }
};
