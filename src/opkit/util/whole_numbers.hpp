#pragma once

#include <algorithm>
#include <cstdint>

namespace opkit {

// Rounding of the non-negative amounts opkit reports and passes on (seconds,
// bytes per second), written out so that opkit needs nothing of libm: one
// library fewer mapped at every start (docs/benchmarks.md, opkit's start).
// Both take a value in [0, 2^62) and give 0 for anything else, NaN included.

// The nearest whole number, halves up (2.5 -> 3).
inline int64_t
rounded(double value)
{
  return value >= 0 && value < 4.6e18 ? static_cast<int64_t>(value + 0.5) : 0;
}

// The smallest whole number not below value (2.1 -> 3, 2.0 -> 2).
inline int64_t
rounded_up(double value)
{
  if (!(value >= 0 && value < 4.6e18)) {
    return 0;
  }
  auto whole = static_cast<int64_t>(value);
  return static_cast<double>(whole) < value ? whole + 1 : whole;
}

// 2 to the power `exponent` (0 to 62), as a double.
inline double
power_of_two(int exponent)
{
  return static_cast<double>(uint64_t{1} << std::clamp(exponent, 0, 62));
}

} // namespace opkit
