#!/usr/bin/env bash
# Puts opkit on PATH: Debian's packages (scripts/setup.sh), then only the
# binary with its man page and shell completions (not the sanitized twin, the
# unit tests or the fuzz replays), installed under PREFIX (default ~/.local,
# whose bin/ is on PATH in Debian's default ~/.profile, and whose share/man
# man finds through it). Usage: bash scripts/install.sh [PREFIX]
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$HOME/.local}
build_dir=${OPKIT_BUILD_DIR:-build}
bash scripts/setup.sh
OPKIT_BUILD_TARGETS="opkit opkit_docs" bash scripts/build.sh
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
echo "installed $prefix/bin/opkit ($("$prefix/bin/opkit" --version)), its man page and completions"
case ":$PATH:" in
*":$prefix/bin:"*) ;;
*) echo "$prefix/bin is not on PATH here: export PATH=\"$prefix/bin:\$PATH\" (e.g. in ~/.profile)" ;;
esac
