#!/usr/bin/env bash
# Settings like ccache's: the user config file, the environment over it, a
# project's opkit.yaml `settings:` over it for project settings, `opkit config
# list` naming each value's origin (file:line), one error line for a bad file.
source "$(dirname "$0")/common.sh"

real_home=$HOME real_cache=${XDG_CACHE_HOME:-}
unset OPKIT_CONFIG OPKIT_HOME OPKIT_VENVS OPKIT_CACHE OPKIT_CACHE_REMOTE OPKIT_DISTCC_HOSTS OPKIT_INDEX_URL \
  PIP_INDEX_URL XDG_CACHE_HOME CXX
export HOME="$work/home" XDG_CONFIG_HOME="$work/xdg"
config="$XDG_CONFIG_HOME/opkit/config.yaml"
mkdir -p "$HOME" "$(dirname "$config")"

# No file: the defaults, and `config path` says the file is absent.
run_opkit 0 config list
expect_contains "$work/out" "^home +$HOME/\.cache/opkit +default$"
expect_contains "$work/out" '^cache +auto +default$'
run_opkit 0 config path
expect_contains "$work/out" "^user +$config \(absent, from \\\$XDG_CONFIG_HOME\)$"

# A config file's home: takes effect (the store opkit uses), with its origin file:line.
printf '# my machine\nhome: %s\ncache: "off"\n' "$work/store" >"$config"
run_opkit 0 sdk list
expect_contains "$work/err" "no SDKs in $work/store/sdks"
run_opkit 0 config list
expect_contains "$work/out" "^home +$work/store +config file \($config:2\)$"
expect_contains "$work/out" "^venvs +$work/store/venvs +default$"
expect_contains "$work/out" "^cache +off +config file \($config:3\)$"
run_opkit 0 config get home
[ "$(cat "$work/out")" = "$work/store" ] || fail "config get home printed $(cat "$work/out")"
run_opkit 1 config get protoc
expect_contains "$work/err" '^protoc: unset \(protoc on PATH\)$'
run_opkit 0 config path
expect_contains "$work/out" "^user +$config \(read, from \\\$XDG_CONFIG_HOME\)$"
run_opkit 0 config list --json
HOME=$real_home XDG_CACHE_HOME=$real_cache expect_json_schema opkit.config-1 "$work/out" # its venv in the real cache
python3 - "$work/out" "$config" <<'PY' || fail "config list --json: home's origin is not the file's line 2"
import json, sys
doc = json.load(open(sys.argv[1]))
home = next(s for s in doc["settings"] if s["key"] == "home")
assert (home["source"], home["file"], home["line"]) == ("config file", sys.argv[2], 2), home
assert doc["files"][0] == {"role": "user", "path": sys.argv[2], "exists": True, "chosen_by": "XDG_CONFIG_HOME"}
PY

# The environment beats the file.
OPKIT_HOME="$work/env-store" run_opkit 0 config list
expect_contains "$work/out" "^home +$work/env-store +environment \(OPKIT_HOME\)$"
OPKIT_HOME="$work/env-store" run_opkit 0 sdk list
expect_contains "$work/err" "no SDKs in $work/env-store/sdks"

# A project's settings: beat the user file for a project setting, found from a folder below opkit.yaml.
mkdir -p proj/src
cat >proj/opkit.yaml <<'YAML'
name: proj
op:
  name: Proj
sources: [src/proj.cc]
settings:
  cache: "on"
  index_url: http://mirror.example/simple
YAML
run_opkit 0 -C proj/src config list
expect_contains "$work/out" "^cache +on +project \($work/proj/opkit\.yaml:6\)$"
expect_contains "$work/out" "^index_url +http://mirror\.example/simple +project \($work/proj/opkit\.yaml:7\)$"
expect_contains "$work/out" "^home +$work/store +config file \($config:2\)$"
run_opkit 0 -C proj/src config path
expect_contains "$work/out" "^project +$work/proj/opkit\.yaml \(read\)$"
OPKIT_CACHE=auto run_opkit 0 -C proj config get cache
[ "$(cat "$work/out")" = auto ] || fail "OPKIT_CACHE did not beat the project's cache"
# ... and a machine setting, or a misspelt one, is refused there with opkit.yaml:line:col.
printf 'settings:\n  cahce: "on"\n' >>proj/opkit.yaml
sed -i '5,7d' proj/opkit.yaml
run_opkit 2 -C proj config list
expect_one_error_line
expect_contains "$work/err" "proj/opkit\.yaml:6:3: unknown setting 'cahce' \(did you mean 'cache'\?\)"
printf 'name: proj\nsettings:\n  home: /x\n' >proj/opkit.yaml
run_opkit 2 -C proj config list
expect_contains "$work/err" "opkit\.yaml:3:3: 'home' is a setting of this machine, not of a project"

# A bad config file: one error line with config.yaml:line:col, exit 2, whatever the command.
printf 'home: /x\ncache: [on\n' >"$config"
run_opkit 2 config list
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $config:[0-9]+:[0-9]+: invalid YAML"
run_opkit 2 sdk list
expect_one_error_line
printf 'home: /x\nhme: /y\n' >"$config"
run_opkit 2 config list
expect_one_error_line
expect_contains "$work/err" "$config:2:1: unknown setting 'hme' \(did you mean 'home'\?\)"
printf 'cxx: [g++, -O2]\n' >"$config"
run_opkit 2 config list
expect_contains "$work/err" "$config:1:6: cxx must be a single value"
printf 'cache: maybe\n' >"$config"
run_opkit 2 config list
expect_contains "$work/err" "$config:1:8: cache must be auto, on or off, got 'maybe'"

# config set writes the file atomically, keeping the other keys and comments; a bad value writes nothing.
printf '# my machine\nhome: %s\n' "$work/store" >"$config"
run_opkit 0 config set cache off
run_opkit 0 config get cache
[ "$(cat "$work/out")" = off ] || fail "config set cache off did not take"
expect_contains "$config" '^# my machine$'
expect_contains "$config" "^home: $work/store$"
cp "$config" "$work/before"
run_opkit 2 config set cache maybe
cmp -s "$config" "$work/before" || fail "a refused config set changed the file"
run_opkit 2 config set hom /x
expect_contains "$work/err" "unknown setting 'hom' \(did you mean 'home'\?\)"

# OPKIT_CONFIG names another file.
printf 'cxx: clang++\n' >"$work/other.yaml"
OPKIT_CONFIG="$work/other.yaml" run_opkit 0 config list
expect_contains "$work/out" "^cxx +clang\+\+ +config file \($work/other\.yaml:1\)$"
expect_contains "$work/out" "^home +$HOME/\.cache/opkit +default$"

# An index URL's password never shows (config list is what people paste into
# bug reports): list, get and --json mask it as pip does; a user name alone stays.
OPKIT_INDEX_URL='https://ci-bot:s3cr3t-t0ken@mirror.example/simple' run_opkit 0 config list
expect_contains "$work/out" '^index_url +https://ci-bot:\*\*\*\*@mirror\.example/simple +environment'
OPKIT_INDEX_URL='https://ci-bot:s3cr3t-t0ken@mirror.example/simple' run_opkit 0 config get index_url
[ "$(cat "$work/out")" = 'https://ci-bot:****@mirror.example/simple' ] || fail "config get index_url printed $(cat "$work/out")"
OPKIT_INDEX_URL='https://ci-bot:s3cr3t-t0ken@mirror.example/simple' run_opkit 0 config list --json
if grep -q 's3cr3t' "$work/out" "$work/err"; then fail "config printed the password"; fi
OPKIT_INDEX_URL='https://ci-bot@mirror.example/simple' run_opkit 0 config get index_url
[ "$(cat "$work/out")" = 'https://ci-bot@mirror.example/simple' ] || fail "a user name alone was changed"
# A query's token is a secret too (the config file's value this time); --show-secrets shows it as it is.
printf 'index_url: https://mirror.example/simple?token=s3cr3t\n' >"$work/token.yaml"
OPKIT_CONFIG="$work/token.yaml" run_opkit 0 config list
expect_contains "$work/out" '^index_url +https://mirror\.example/simple\?token=\*\*\*\* +config file'
if grep -q 's3cr3t' "$work/out" "$work/err"; then fail "config list printed the query's token"; fi
OPKIT_CONFIG="$work/token.yaml" run_opkit 0 config get index_url --show-secrets
[ "$(cat "$work/out")" = 'https://mirror.example/simple?token=s3cr3t' ] || fail "--show-secrets printed $(cat "$work/out")"

# index_url that opkit's sources leave unset: what pip's own configuration gives `pip download`
# (here the pip.conf under $XDG_CONFIG_HOME, the test's own), with its file, line, section and
# spelling, masked like the rest; opkit's own sources still come first.
mkdir -p "$XDG_CONFIG_HOME/pip"
pip_conf="$XDG_CONFIG_HOME/pip/pip.conf"
printf '[global]\nindex-url = https://other.example/simple\n[download]\nindex_url = https://ci:s3cr3t@pip.example/simple\n' >"$pip_conf"
run_opkit 0 config list
expect_contains "$work/out" "^index_url +https://ci:\*\*\*\*@pip\.example/simple +pip \($pip_conf:4 \[download\] index_url\)$"
run_opkit 0 config get index_url
[ "$(cat "$work/out")" = 'https://ci:****@pip.example/simple' ] || fail "config get index_url printed $(cat "$work/out")"
run_opkit 0 config get index_url --show-secrets
[ "$(cat "$work/out")" = 'https://ci:s3cr3t@pip.example/simple' ] || fail "--show-secrets printed $(cat "$work/out")"
run_opkit 0 config list --json
if grep -q 's3cr3t' "$work/out" "$work/err"; then fail "config list --json printed pip.conf's password"; fi
HOME=$real_home XDG_CACHE_HOME=$real_cache expect_json_schema opkit.config-1 "$work/out"
python3 - "$work/out" "$pip_conf" <<'PY' || fail "config list --json: index_url is not pip's [download] index_url"
import json, sys
doc = json.load(open(sys.argv[1]))
url = next(s for s in doc["settings"] if s["key"] == "index_url")
assert (url["source"], url["file"], url["line"], url["variable"]) == ("pip", sys.argv[2], 4, None), url
assert url["origin"] == f"pip ({sys.argv[2]}:4 [download] index_url)", url
PY
OPKIT_INDEX_URL=https://opkit.example/simple run_opkit 0 config get index_url
[ "$(cat "$work/out")" = https://opkit.example/simple ] || fail "OPKIT_INDEX_URL did not beat pip.conf"
rm "$pip_conf"
