#pragma once

// The programs a build runs: the C++ compiler (as $CXX names it) and the CUDA toolkit.
#include "opkit/build/plan.hpp"

#include <string>
#include <string_view>

namespace opkit::build {

// Splits $CXX into launcher, compiler and flags: the first word that is not a
// known launcher (ccache, distcc, sccache, icecc) is the compiler; each program
// is resolved against PATH. Error(missing) names the program it looked for.
CompilerCommand
parse_compiler_command(std::string_view cxx);

// Where the CUDA toolkit is: $CUDA_HOME (or $CUDA_PATH), else around the nvcc
// on PATH. Error(missing) naming the source that needs it.
CudaToolkit
find_cuda_toolkit(const std::string& needed_by);

} // namespace opkit::build
