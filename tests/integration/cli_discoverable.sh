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

# --- help in opkit's words: no CLI11 jargon, the global options in every
# command's help, and examples that parse with opkit's own CLI
command_paths=$("$OPKIT" completion bash | sed -n "s/^    'opkit\(.*\)')\$/\1/p")
[ "$(echo "$command_paths" | wc -l)" -ge 30 ] || fail "too few commands in the bash completion: $command_paths"
for words in $(echo "$command_paths" | tr ' ' '+'); do
  words=${words//+/ }
  # shellcheck disable=SC2086
  "$OPKIT" $words --help >"$work/help.out" || fail "opkit$words --help failed"
  if grep -nE 'INT:|TEXT|REQUIRED|Excludes:|Needs:| SUBCOMMAND$|Positionals:|^Subcommands:|:POSITIVE|:\{' "$work/help.out"; then
    fail "opkit$words --help speaks CLI11's jargon"
  fi
  if [ -n "$words" ]; then
    for global in '-C,--directory DIR' '-v,--verbose' '-q,--quiet'; do
      grep -qF -- "  $global" "$work/help.out" || fail "opkit$words --help lacks the global option $global"
    done
  fi
  awk '/^Examples?:$/ {on = 1; next} on && /^$/ {on = 0} on' "$work/help.out" >"$work/examples"
  [ -s "$work/examples" ] || fail "opkit$words --help has no example"
  while read -r example; do
    case "$example" in "opkit$words"*) ;; *) fail "opkit$words's example is of another command: $example" ;; esac
    # shellcheck disable=SC2086
    OPKIT_PARSE_ONLY=1 "$OPKIT" ${example#opkit } >/dev/null 2>"$work/parse.err" || fail "opkit$words's example does not parse: $example: $(cat "$work/parse.err")"
  done < <(sed 's/ *>.*//' "$work/examples")
done
run_opkit 0 build --help
expect_contains "$work/out" '^  -j,--jobs N '
expect_contains "$work/out" '^  --abi 0\|1 '
expect_contains "$work/out" '^  --tf VERSION\.\.\. '
expect_contains "$work/out" '^  --build-dir DIR '
expect_contains "$work/out" '^  --cache .*\(not with --no-cache\)$'
run_opkit 0 sdk add --help
expect_contains "$work/out" '^Usage: opkit sdk add \[OPTIONS\] SOURCE$'
# Usage errors in the same words.
run_opkit 2 sdk add
expect_one_error_line
[ "$(cat "$work/err")" = "opkit: error: opkit sdk add: missing SOURCE (see opkit sdk add --help)" ] || fail "sdk add: $(cat "$work/err")"
run_opkit 2 build --jobs
expect_contains "$work/err" '^opkit: error: opkit build: --jobs needs a value \(N\) '
run_opkit 2 build --cache --no-cache
expect_contains "$work/err" '^opkit: error: opkit build: --cache and --no-cache cannot go together: give one of them '
run_opkit 2 build --abi 3
expect_contains "$work/err" '^opkit: error: opkit build: --abi: 3 is not one of 0\|1 '
run_opkit 2 build --jobs 0
expect_contains "$work/err" '^opkit: error: opkit build: --jobs: 0 is not a positive number '
# Typos get the name meant; other words get no guess (never --force -> --torch).
while read -r line typo meant; do
  # shellcheck disable=SC2086
  run_opkit 2 ${line//+/ } $typo
  expect_one_error_line
  if [ "$meant" = - ]; then
    if grep -q 'did you mean' "$work/err"; then fail "opkit $line $typo guessed: $(cat "$work/err")"; fi
  else
    grep -qF "(did you mean ${meant//+/ }?)" "$work/err" || fail "opkit $line $typo: expected $meant, got: $(cat "$work/err")"
  fi
done <<'TYPOS'
build --force -
test --force -
check --gpu -
build --verbsoe --verbose
build --vrebose --verbose
build --jbos --jobs
build --dyr-run --dry-run
build --no-chekc --no-check
build --torhc --torch
build --buidl-dir --build-dir
build --release -
build --debug -
build --target -
sdk fech sdk+fetch
sdk lsit sdk+list
sdk remvoe sdk+remove
new+zz --tempalte --template
package wheell package+wheel
package --json -
check --profil --profile
TYPOS
# Template names and opkit.yaml keys get the nearest name too.
run_opkit 2 new typo_op --template tensorflow_op
expect_one_error_line
expect_contains "$work/err" "'tensorflow_op': unknown template \(did you mean tensorflow-op\? available: "
run_opkit 2 new typo_op --template zzz
if grep -q 'did you mean' "$work/err"; then fail "--template zzz guessed: $(cat "$work/err")"; fi
run_opkit 0 new typo_op --tf 2.10.1
sed -i 's/^sources:/sorces:/' typo_op/opkit.yaml
run_opkit 2 -C typo_op build --dry-run
expect_one_error_line
expect_contains "$work/err" "opkit\.yaml:[0-9]+:1: unknown key 'sorces' \(did you mean 'sources'\? expected one of: "
sed -i 's/^sorces:/sources:/; s/^  kernels:/  kernals:/' typo_op/opkit.yaml
run_opkit 2 -C typo_op build --dry-run
expect_contains "$work/err" "unknown key 'kernals' \(did you mean 'kernels'\? "
rm -rf typo_op

# The commands as CLI11's own help lists them (not as the renderers see them).
subcommands() { # <opkit args...>: the names under "Commands:" of that help
  "$OPKIT" "$@" --help | awk '/^Commands:/ {on = 1; next} on && /^$/ {on = 0} on && NF {print $1}'
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
# Setting keys for config get and set (configs/settings.yaml).
expect_completion "$(printf '%s\n' cache cache_remote)" opkit config get cache
expect_completion "$(printf '%s\n' index_url)" opkit config set ind
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
# Each command's examples, as its --help shows them.
expect_contains "$work/man.txt" '^[[:space:]]+Examples:$'
expect_contains "$work/man.txt" '^[[:space:]]+opkit sdk fetch tensorflow==2\.10\.1$'
expect_contains "$work/man.txt" '^[[:space:]]+opkit build --tf 2\.10\.1 -j 8 --dry-run$'
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

# --- --json on failure: stdout ends with the command's failure document (an
# opkit error, a usage error), valid against the command's schema; every --json
# flag names its schema, and the schema file exists.
empty_home=$(mktemp -d)
OPKIT_HOME="$empty_home" run_opkit 3 sdk info 9.9 --json
expect_json_failure opkit.sdk-1 3
python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["error"]; assert "opkit sdk fetch" in e["hint"], e' \
  "$work/out" || fail "sdk info --json's failure has no hint: $(cat "$work/out")"
OPKIT_HOME="$empty_home" run_opkit 3 sdk remove 2.10 --json
expect_json_failure opkit.sdk-remove-1 3
OPKIT_HOME="$empty_home" run_opkit 2 sdk list --json --bogus
expect_json_failure opkit.sdk-list-1 2
run_opkit 2 sdk info --json
expect_json_failure opkit.sdk-1 2
run_opkit 2 new 9bad --json
expect_json_failure opkit.new-1 2
(cd "$empty_home" && "$OPKIT" build --tf 9.9 --json >"$work/out" 2>"$work/err") && fail "build outside a project succeeded"
expect_json_failure opkit.build-1 2
(cd "$empty_home" && "$OPKIT" test --json >"$work/out" 2>"$work/err") && fail "test outside a project succeeded"
expect_json_failure opkit.test-1 2
(cd "$empty_home" && "$OPKIT" test --python --json >"$work/out" 2>"$work/err") && fail "test --python outside a project succeeded"
expect_json_failure opkit.test-python-1 2
run_opkit 2 check "$empty_home/missing.so" --tf 2.10 --json
expect_json_failure opkit.check-1 2
run_opkit 2 package verify "$empty_home" --json
expect_json_failure opkit.package-verify-1 2
rm -rf "$empty_home"
# Without --json, stdout stays empty on failure.
run_opkit 2 sdk info
[ ! -s "$work/out" ] || fail "a failure without --json printed to stdout"
for words in "sdk add" "sdk list" "sdk fetch" "sdk info" "sdk remove" "sdk gc" new build test check "profile list" \
             "package easyrec" "package wheel" "package saved-model" "package tf-serving" "package verify" publish "config list"; do
  # shellcheck disable=SC2086
  schema=$("$OPKIT" $words --help | sed -n 's/^ *--json .*(schema \(opkit\.[a-z-]*\)\/\([0-9]*\).*/\1-\2/p')
  [ -n "$schema" ] || fail "opkit $words --help: --json names no schema"
  [ -f "$OPKIT_SOURCE_DIR/schemas/$schema.schema.json" ] || fail "opkit $words --json: no schemas/$schema.schema.json"
  grep -q '"failure"' "$OPKIT_SOURCE_DIR/schemas/$schema.schema.json" || fail "schemas/$schema.schema.json has no failure"
done

# --- no opkit.yaml here or above: one line naming the folder
outside=$(mktemp -d)
trap 'rm -rf "$outside"' EXIT
mkdir -p "$outside/a/b"
(cd "$outside/a/b" && "$OPKIT" build >"$work/out" 2>"$work/err") && fail "build without a project succeeded" || true
expect_one_error_line
expect_contains "$work/err" "$outside/a/b: no opkit.yaml here or in any folder above"

echo "PASS: $test_name"
