# Every C++ file under version control is laid out as .clang-format says.
set -euo pipefail
cd "${OPKIT_SOURCE_DIR:?}"
command -v clang-format >/dev/null || { echo "FAIL: clang-format is missing; scripts/setup.sh installs it" >&2; exit 1; }
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'cmake/*.cpp' 'bench/*.cpp')
if ! clang-format --dry-run -Werror "${files[@]}"; then
  echo "FAIL: run clang-format -i on the files above" >&2
  exit 1
fi
echo "clang-format: ${#files[@]} files as .clang-format says"
