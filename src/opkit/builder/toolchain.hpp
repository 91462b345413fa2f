#pragma once

// The programs a build runs: the C++ compiler (as $CXX names it) and the CUDA toolkit.
#include "opkit/builder/plan.hpp"
#include "opkit/sdk/sdk.hpp"
#include "opkit/util/process.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace opkit::builder {

// Splits $CXX into launcher, compiler and flags: the first word that is not a
// known launcher (ccache, distcc, sccache, icecc) is the compiler; each program
// is resolved against PATH. Error(missing) names the program it looked for.
CompilerCommand
parse_compiler_command(std::string_view cxx);

// Where the CUDA toolkit is: $CUDA_HOME (or $CUDA_PATH), else around the nvcc
// on PATH. Error(missing) naming the source that needs it.
CudaToolkit
find_cuda_toolkit(const std::string& needed_by);

// The toolkit that builds the device code of CUDA SDK `sdk`: by the `cuda`
// setting, "auto", the system's when its CUDA major is the SDK's, else the
// release configs/cuda/toolchains.yaml names for that major (fetched once
// into the store; with `fetch` false only where it would be); "system" (or a
// major the table lacks, with a note) the system's.
CudaToolkit
cuda_toolkit_for(const sdk::Sdk& sdk, const std::string& needed_by, bool fetch);

// The variables that change what the compilers and the linker find or write
// (CPATH, CPLUS_INCLUDE_PATH, LIBRARY_PATH, LD_RUN_PATH, NVCC_APPEND_FLAGS,
// ...) unseen by ninja, which rebuilds on a changed command, never on a
// changed environment. opkit's compiles run without them (every program a
// build runs: ninja, the precompiled header, the fitting to an older system),
// so that a kept no-op or "up to date" is never a library built with others.
const std::vector<std::string>&
compiler_search_variables();

// Options for running a compiler (or what runs them: ninja) without them.
ProcessOptions
compiler_process_options();

// Those of them this environment sets, for a note.
std::vector<std::string>
compiler_search_variables_set();

} // namespace opkit::builder
