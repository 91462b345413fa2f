#pragma once

// One step of making a Python environment (`python -m venv`, `pip install`):
// run under the network deadline (pip reaches PyPI), its progress a step of the
// status line (util/progress) with pip's latest line ("Downloading
// tensorflow-1.12.0-...whl (83.1 MB)") and the time so far. Without a terminal
// pip's lines go to stderr as they come; with -q nothing.
#include "opkit/util/progress.hpp"

#include <string>
#include <vector>

namespace opkit::probe {

// pip's options for how much it says: its lines (opkit draws the progress), nothing with -q.
std::vector<std::string>
pip_output_flags();

// Runs argv; a failure is Error(missing) naming `what`, with the program's last
// lines and `hint`; one whose output says the network never reached the index
// (pip's retry warnings) is NetworkError (exit 4); past the deadline, past_net_deadline.
void
run_env_step(const std::vector<std::string>& argv, const std::string& what, progress::Step& step,
             const std::string& hint);

} // namespace opkit::probe
