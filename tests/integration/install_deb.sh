# Installable: `cmake --install` into a staging root (DESTDIR) and the .deb
# `cpack -G DEB` makes from the same build, each run from where it landed:
# the binary, its man page and completions, the docs. No fixture needed.
source "$(dirname "$0")/common.sh"

build_dir=$(dirname "$OPKIT")
[ -f "$build_dir/cmake_install.cmake" ] || fail "$build_dir is not opkit's build folder"

# The reference pages the README links to (docs/*.md), installed beside it.
doc_pages=()
for page in "$OPKIT_SOURCE_DIR"/docs/*.md; do doc_pages+=("$(basename "$page")"); done
[ "${#doc_pages[@]}" -ge 10 ] || fail "found ${#doc_pages[@]} pages in $OPKIT_SOURCE_DIR/docs, expected the reference"

# Runs an installed opkit, in a fresh folder, with nothing from the build around.
check_installed() { # <root> <prefix>
  local root=$1 prefix=$2 bin="$1$2/bin/opkit"
  [ -x "$bin" ] || fail "no $bin"
  "$bin" --version >"$work/out" || fail "$bin --version failed"
  [ "$(cat "$work/out")" = "opkit 0.1.0" ] || fail "$bin --version said $(cat "$work/out")"
  rm -rf "$work/scratch" && mkdir -p "$work/scratch"
  (cd "$work/scratch" && "$bin" new installed_op >/dev/null) || fail "$bin new failed"
  [ -f "$work/scratch/installed_op/opkit.yaml" ] || fail "$bin new wrote no project"
  "$bin" completion bash >"$work/completion.bash" || fail "$bin completion bash failed"
  local share="$root$prefix/share"
  for file in "$share/bash-completion/completions/opkit" "$share/zsh/vendor-completions/_opkit" \
              "$share/fish/vendor_completions.d/opkit.fish" "$share/doc/opkit/README.md" \
              "$share/doc/opkit/ARCHITECTURE.md" "$share/doc/opkit/copyright" "${doc_pages[@]/#/$share/doc/opkit/docs/}"; do
    [ -s "$file" ] || fail "not installed: $file"
  done
  cmp -s "$work/completion.bash" "$share/bash-completion/completions/opkit" ||
    fail "the installed bash completion is not what the installed opkit prints"
  local man_page
  man_page=$(ls "$share/man/man1/opkit.1"* 2>/dev/null | head -n 1)
  [ -n "$man_page" ] || fail "no man page under $share/man/man1"
  man -l "$man_page" 2>/dev/null | col -b >"$work/man.txt"
  grep -q '^ *opkit build$' "$work/man.txt" || fail "$man_page does not render with man -l"
}

# --- cmake --install into a staging root
stage="$work/stage"
DESTDIR="$stage" cmake --install "$build_dir" --prefix /opt/opkit >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install failed"; }
check_installed "$stage" /opt/opkit
installed=$((8 + ${#doc_pages[@]}))
[ "$(find "$stage" -type f | wc -l)" -eq "$installed" ] ||
  { find "$stage" -type f >&2; fail "cmake --install installed other than $installed files"; }

# --- the .deb
command -v dpkg-shlibdeps >/dev/null || fail "dpkg-shlibdeps is missing (dpkg-dev: run scripts/setup.sh)"
cpack -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack -G DEB failed"; }
deb=$(ls "$work"/pkg/*.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || { cat "$work/cpack.log" >&2; fail "cpack made no .deb"; }
dpkg-deb -I "$deb" >"$work/info"
expect_contains "$work/info" '^ Package: opkit$'
expect_contains "$work/info" '^ Version: 0\.1\.0$'
expect_contains "$work/info" '^ Section: devel$'
expect_contains "$work/info" '^ Maintainer: .+<.+@.+>$'
expect_contains "$work/info" '^ Description: build, check and ship custom TensorFlow ops'
# Linked libraries through dpkg-shlibdeps, the ones opened on first use named too;
# none of those linked statically (cmake/OpkitDependencies.cmake).
for dep in libc6 libgcc-s1 'libzydis4\.0' libarchive13 libcurl4 'libssl3' libxml2 ninja-build; do
  grep -E '^ Depends: ' "$work/info" | grep -Eq "(^|[ ,])$dep( |,|$)" || fail "the .deb does not depend on $dep: $(grep Depends "$work/info")"
done
for dep in 'libstdc\+\+6' libelf1 'libyaml-cpp0\.7' 'libfmt9' zlib1g; do
  grep -E '^ Depends: ' "$work/info" | grep -Eq "(^|[ ,])$dep( |,|$)" && fail "the .deb depends on $dep, which opkit links statically: $(grep Depends "$work/info")"
done
dpkg-deb -c "$deb" >"$work/contents"
expect_contains "$work/contents" '\./usr/bin/opkit$'
expect_contains "$work/contents" '\./usr/share/man/man1/opkit\.1'
expect_contains "$work/contents" '\./usr/share/bash-completion/completions/opkit$'
expect_contains "$work/contents" '\./usr/share/doc/opkit/copyright$'
dpkg-deb -x "$deb" "$work/root"
check_installed "$work/root" /usr

echo "PASS: $test_name"
