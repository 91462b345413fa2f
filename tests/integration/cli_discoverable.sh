#!/usr/bin/env bash
# The CLI explains itself: one-line usage errors with a suggestion, `opkit help
# CMD`, shell completions (bash run for real, zsh and fish parsed and queried),
# the man page, `--version --verbose`, and --json on new and profile list. No
# SDK needed.
source "$(dirname "$0")/common.sh"

# --- usage errors: one line, exit 2, the nearest command or option
run_opkit 2 buld
expect_one_error_line
[ "$(cat "$work/err")" = "opkit: error: buld: no such command (did you mean build?)" ] ||
  fail "opkit buld said: $(cat "$work/err")"
run_opkit 2 --bogus
expect_one_error_line
expect_contains "$work/err" '^opkit: error: --bogus: no such option of opkit \(see opkit --help\)$'
run_opkit 2 --verbsoe build
expect_one_error_line
expect_contains "$work/err" 'did you mean --verbose\?'
run_opkit 2 build --bogsu
expect_one_error_line
expect_contains "$work/err" '^opkit: error: --bogsu: no such option of opkit build \(see opkit build --help\)$'
run_opkit 2 build --jbos 2
expect_one_error_line
expect_contains "$work/err" '^opkit: error: --jbos: no such option of opkit build \(did you mean --jobs\?\)$'
# An option given before its command: never "did you mean" the same word.
run_opkit 2 --jobs 4 build
expect_one_error_line
[ "$(cat "$work/err")" = "opkit: error: --jobs: no such option of opkit (opkit build --jobs exists: put it after build)" ] ||
  fail "opkit --jobs 4 build said: $(cat "$work/err")"
run_opkit 2 --jobs 4
expect_one_error_line
expect_contains "$work/err" '^opkit: error: --jobs: no such option of opkit \(opkit build --jobs exists\)$'
run_opkit 2 --tf 2.10
expect_one_error_line
expect_contains "$work/err" '^opkit: error: --tf: no such option of opkit \(opkit new --tf, .*, \.\.\. exist\)$'
run_opkit 2 sdk lst
expect_one_error_line
expect_contains "$work/err" '^opkit: error: sdk lst: no such command \(did you mean sdk list\?\)$'
run_opkit 2 frobnicate
expect_one_error_line
expect_contains "$work/err" 'frobnicate: no such command \(opkit commands: sdk, new, .*build.*\)$'
# `opkit` alone is `opkit --help`, exit 0; a flag without a command is still a usage error.
run_opkit 0 --help
cp "$work/out" "$work/help.out"
run_opkit 0
cmp -s "$work/help.out" "$work/out" || { diff "$work/help.out" "$work/out" >&2; fail "opkit alone differs from opkit --help"; }
[ ! -s "$work/err" ] || fail "opkit alone wrote to stderr: $(cat "$work/err")"
run_opkit 2 -v
expect_one_error_line
expect_contains "$work/err" '^opkit: error: opkit: missing the command, one of: sdk, new, init, build, test, check'
run_opkit 2 sdk
expect_one_error_line
expect_contains "$work/err" '^opkit: error: opkit sdk: missing the command, one of: add, list, fetch, info, remove, gc, usage '
run_opkit 2 build --jobs zero
expect_one_error_line
expect_contains "$work/err" '^opkit: error: opkit build: .*zero'

# --- help: `opkit help CMD [SUB]` is `opkit CMD [SUB] --help`
for words in "" "build" "sdk" "sdk add" "profile list" "help"; do
  # shellcheck disable=SC2086
  run_opkit 0 help $words
  cp "$work/out" "$work/help.out"
  # shellcheck disable=SC2086
  run_opkit 0 $words --help
  cmp -s "$work/help.out" "$work/out" || { diff "$work/help.out" "$work/out" >&2; fail "opkit help $words differs from opkit $words --help"; }
done
run_opkit 0 help sdk add
expect_contains "$work/out" '^Usage: opkit sdk add '
run_opkit 2 help buld
expect_one_error_line
[ "$(cat "$work/err")" = "opkit: error: buld: no such command (did you mean build?)" ] || fail "help buld: $(cat "$work/err")"
run_opkit 2 help sdk ad
expect_one_error_line
expect_contains "$work/err" 'sdk ad: no such command \(did you mean sdk add\?\)'

# The commands as CLI11's own help lists them (not as the renderers see them).
subcommands() { # <opkit args...>: the names under "Subcommands:" of that help
  "$OPKIT" "$@" --help | awk '/^Subcommands:/ {on = 1; next} on && /^$/ {on = 0} on && NF {print $1}'
}
top=$(subcommands)
[ "$(echo "$top" | wc -l)" -ge 10 ] || fail "opkit --help lists too few commands: $top"
echo "$top" | grep -qx completion || fail "opkit --help does not list completion"

# --- completions: bash, run for real
run_opkit 0 completion bash
cp "$work/out" "$work/opkit.bash"
complete_bash() { # <words...>: the last is the word being completed
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _opkit
           printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$work/opkit.bash" "$@"
}
expect_completion() { # <expected, newline-separated, sorted> <words...>
  local expected=$1 got
  shift
  got=$(complete_bash "$@")
  [ "$got" = "$expected" ] || fail "bash completion of '$*': got [$got], expected [$expected]"
}
bash -n "$work/opkit.bash" || fail "the bash completion does not parse"
expect_completion build opkit bu
expect_completion --jobs opkit build --jo
expect_completion --jobs opkit build --tf 1.12 --jo
expect_completion "$(printf '%s\n' bash fish zsh)" opkit completion ""
expect_completion "$(echo "$top" | sort)" opkit ""
expect_completion "$(subcommands sdk | sort)" opkit sdk ""
expect_completion "$(subcommands package | sort)" opkit -C /tmp package ""
expect_completion "$(printf '%s\n' --no-cache --no-check --no-pch --no-wait)" opkit -C /tmp build --no
expect_completion --verbose opkit sdk list --verb
expect_completion add opkit sdk a
templates=$("$OPKIT" new --list | awk '{print $1}' | sort)
[ -n "$templates" ] || fail "opkit new --list lists no templates"
expect_completion "$templates" opkit new zero_out --template ""
expect_completion "$templates" opkit new -t ""
runtimes=$("$OPKIT" profile list | awk '{print $1}' | sort)
expect_completion "$runtimes" opkit check --runtime ""
expect_completion "$runtimes" opkit build --runtime ""
expect_completion "$(printf '%s\n' 0 1)" opkit build --abi ""
# A value of an option is not taken for a command: `-C build <TAB>` is still at the top.
expect_completion "$(echo "$top" | sort)" opkit -C build ""

# zsh: parses, and the completion system offers the same
run_opkit 0 completion zsh
cp "$work/out" "$work/_opkit"
command -v zsh >/dev/null || fail "zsh is not installed (run scripts/setup.sh)"
zsh -n "$work/_opkit" || fail "the zsh completion does not parse"
head -n 1 "$work/_opkit" | grep -qx '#compdef opkit' || fail "the zsh completion lacks #compdef"
# Ask zsh's completion system itself, in a pseudo-terminal (zsh/zpty).
mkdir -p "$work/zfunc"
cp "$work/_opkit" "$work/zfunc/_opkit"
complete_zsh() { # <command line>: the candidates zsh lists for it
  ZFUNC="$work/zfunc" LINE="$1" timeout 60 zsh -f <<'ZSH'
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "PS1='' ; fpath=($ZFUNC \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-separator ''; zstyle ':completion:*' format ''"
zpty -w z "zmodload zsh/complist; bindkey '^I' complete-word; setopt autolist nolistambiguous; unsetopt listtypes"
zpty -w z "print -r -- '<<begin>>'"
zpty -n -w z "$LINE"$'\t'
sleep 2
zpty -w z $'\C-c'
zpty -w z "print -r -- '<<end>>'"
sleep 1
out=""
while zpty -r -t z line; do out+="$line"; done
print -r -- "$out"
zpty -d z
ZSH
} # (its output has the terminal's escape sequences: take them out)
strip_escapes() { sed -E 's/\x1b\[[0-9;?]*[A-Za-z]//g'; }
zsh_out=$(complete_zsh "opkit bu") || true
echo "$zsh_out" | strip_escapes >"$work/zsh-bu.txt"
grep -q "opkit build" "$work/zsh-bu.txt" || fail "zsh did not complete 'opkit bu' to build: $(tail -c 600 "$work/zsh-bu.txt")"
zsh_out=$(complete_zsh "opkit sdk ") || true
echo "$zsh_out" | strip_escapes >"$work/zsh-sdk.txt"
for sub in $(subcommands sdk); do
  grep -Eq "(^|[^a-z])$sub +[A-Z]" "$work/zsh-sdk.txt" || fail "zsh did not offer 'opkit sdk $sub': $(tail -c 600 "$work/zsh-sdk.txt")"
done

# fish: parses, and `complete -C` answers from it
run_opkit 0 completion fish
cp "$work/out" "$work/opkit.fish"
command -v fish >/dev/null || fail "fish is not installed (run scripts/setup.sh)"
fish -n "$work/opkit.fish" || fail "the fish completion does not parse"
complete_fish() {
  fish -c "source $work/opkit.fish; complete -C '$1'" | cut -f1 | sort
}
[ "$(complete_fish 'opkit bu')" = build ] || fail "fish: opkit bu -> $(complete_fish 'opkit bu')"
[ "$(complete_fish 'opkit build --jo')" = --jobs ] || fail "fish: opkit build --j -> $(complete_fish 'opkit build --jo')"
[ "$(complete_fish 'opkit sdk ')" = "$(subcommands sdk | sort)" ] || fail "fish: opkit sdk -> $(complete_fish 'opkit sdk ')"
[ "$(complete_fish 'opkit new --template ')" = "$templates" ] || fail "fish: --template -> $(complete_fish 'opkit new --template ')"
grep -qx -- --json <(complete_fish 'opkit sdk list --') || fail "fish: sdk list offers no --json"
grep -qx -- --verbose <(complete_fish 'opkit sdk list --') || fail "fish: global flags are not offered after a command"

# --- the man page: made at build time from the same tree, renders without warnings
man_page="$(dirname "$OPKIT")/generated-docs/opkit.1"
[ -f "$man_page" ] || fail "the build made no $man_page"
run_opkit 0 help --man
cmp -s "$work/out" "$man_page" || fail "$man_page is not what opkit help --man prints (stale build?)"
groff -man -Tutf8 -ww -z "$man_page" 2>"$work/groff.err" || fail "groff failed on the man page"
[ ! -s "$work/groff.err" ] || { cat "$work/groff.err" >&2; fail "groff warns about the man page"; }
MANWIDTH=100 man -l "$man_page" 2>"$work/man.err" | col -b >"$work/man.txt"
[ ! -s "$work/man.err" ] || { cat "$work/man.err" >&2; fail "man -l warns about the man page"; }
for command in $top; do
  grep -q "^   opkit $command\$" "$work/man.txt" || grep -q "^  opkit $command\$" "$work/man.txt" ||
    fail "the man page has no section for opkit $command"
  for sub in $(subcommands "$command"); do
    grep -Eq "^ +opkit $command $sub\$" "$work/man.txt" || fail "the man page has no section for opkit $command $sub"
  done
done
expect_contains "$work/man.txt" '^EXIT STATUS'
expect_contains "$work/man.txt" '--directory'
# ENVIRONMENT and FILES come from configs/settings.yaml: every variable, with its setting's key.
awk '/^ENVIRONMENT/ {on = 1; next} /^[A-Z]/ {on = 0} on' "$work/man.txt" >"$work/man.env"
awk '/^FILES/ {on = 1; next} /^[A-Z]/ {on = 0} on' "$work/man.txt" >"$work/man.files"
python3 - "$OPKIT_SOURCE_DIR/configs/settings.yaml" "$work/man.env" <<'PY' || fail "the man page's ENVIRONMENT misses settings"
import re, sys, yaml
text = " ".join(re.sub("\u2010\\s+", "", open(sys.argv[2]).read()).split())  # man hyphenates: set\u2010 ting
missing = [f"{v} ({s['key']})" for s in yaml.safe_load(open(sys.argv[1]))["settings"] for v in s["env"]
           if not re.search(rf"\b{v}\b", text) or f"setting {s['key']}" not in text]
assert not missing, missing
PY
for file in opkit.yaml build/.opkit-build.lock config.yaml '\$\{XDG_CACHE_HOME\}/opkit' '\$\{home\}/venvs'; do
  expect_contains "$work/man.files" "$file"
done

# --- versions
run_opkit 0 --version
[ "$(cat "$work/out")" = "opkit 0.1.0" ] || fail "opkit --version said: $(cat "$work/out")"
for flags in "--version --verbose" "-v --version"; do
  # shellcheck disable=SC2086
  run_opkit 0 $flags
  head -n 1 "$work/out" | grep -qx 'opkit 0.1.0' || fail "$flags: first line is not opkit 0.1.0"
  for field in '^commit: +[0-9a-f]{7,}(-dirty)?$' '^compiler: +(GNU|Clang) [0-9]+\.' '^build type: +[A-Za-z]+$' \
               '^  CLI11 +2\.' '^  yaml-cpp +[0-9]' '^  fmt +[0-9]' '^  nlohmann-json +3\.' '^  libelf +0\.' \
               '^  libarchive +3\.' '^  libcurl +[0-9]' '^  OpenSSL +[0-9]' '^  libxml2 +2\.[0-9]+\.[0-9]+$' '^  libinih +[0-9]+$' \
               '^  libarchive +libarchive 3\.[0-9.]+ \(libarchive\.so\.' '^  libcurl +libcurl/[0-9.]+.* \(libcurl\.so\.4\)' \
               '^  libcrypto +OpenSSL [0-9.]+.* \(libcrypto\.so\.' '^  libxml2 +2\.[0-9]+\.[0-9]+ \([0-9]+\) \(libxml2\.so\.2\)$'; do
    expect_contains "$work/out" "$field"
  done
done
commit=$(awk '/^commit:/ {print $2}' "$work/out")
head_commit=$(git -C "$OPKIT_SOURCE_DIR" rev-parse --short HEAD)
case "$commit" in
  "$head_commit"*) ;;
  *) fail "opkit --version --verbose says commit $commit, the source is at $head_commit" ;;
esac
run_opkit 0 -q --version
[ "$(cat "$work/out")" = "opkit 0.1.0" ] || fail "opkit -q --version said: $(cat "$work/out")"
# What every start maps: libc and libgcc_s alone (libstdc++, fmt, yaml-cpp and
# libelf are inside the binary, libm is not needed, the rest is opened on use).
needed=$(readelf -d "$OPKIT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | sort | tr '\n' ' ')
[ "$needed" = "ld-linux-x86-64.so.2 libc.so.6 libgcc_s.so.1 " ] || fail "opkit needs at start: $needed"

# --- --json on new and profile list, against their schemas
run_opkit 0 new json_op --json --tf 2.10.1
expect_json_schema opkit.new-1 "$work/out"
python3 - "$work/out" "$work/json_op" <<'PY' || fail "opkit new --json does not describe what it wrote"
import json, os, sys
report = json.load(open(sys.argv[1]))
assert report["project"] == "json_op" and report["op"] == "JsonOp", report
assert report["template"] == "tensorflow-op" and report["tf_versions"] == ["2.10.1"], report
assert report["folder"] == sys.argv[2], report["folder"]
written = sorted(os.path.relpath(os.path.join(d, f), sys.argv[2]) for d, _, fs in os.walk(sys.argv[2]) for f in fs)
assert sorted(report["files"]) == written, (report["files"], written)
PY
run_opkit 0 profile list --json
expect_json_schema opkit.profile-list-1 "$work/out"
python3 - "$work/out" "$runtimes" <<'PY' || fail "opkit profile list --json differs from the text list"
import json, sys
names = sorted(r["name"] for r in json.load(open(sys.argv[1]))["runtimes"])
assert names == sorted(sys.argv[2].split()), names
PY

# --- no opkit.yaml here or above: one line naming the folder
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT
mkdir -p "$outside/a/b"
(cd "$outside/a/b" && "$OPKIT" build >"$work/out" 2>"$work/err") && fail "build without a project succeeded" || true
expect_one_error_line
expect_contains "$work/err" "$outside/a/b: no opkit.yaml here or in any folder above"

echo "PASS: $test_name"
