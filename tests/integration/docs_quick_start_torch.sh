# The README's PyTorch quick start, run as written (see docs_quick_start.sh):
# the console block between <!-- quick-start-torch --> and its end, on a fresh
# OPKIT_HOME, with `sdk fetch` reading a local index holding PyPI's torch wheels.
QUICK_START=quick-start-torch
source "$(dirname "$0")/docs_quick_start.sh"
