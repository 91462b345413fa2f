# docs/ci.md's recipes, run as written: the GitHub Actions workflow between
# <!-- ci-github --> and <!-- /ci-github -->, and the GitLab CI job between
# <!-- ci-gitlab --> and <!-- /ci-gitlab -->. A local runner substitute: the
# workflow's `run:` steps, each in its own `bash --noprofile --norc -eo
# pipefail` (the runner's `shell: bash`) with the job's and the step's `env:`
# and GITHUB_ACTIONS=true, in a checkout (a project `opkit new` makes); then the
# GitLab job's `script:` lines in one bash, in a second checkout, with
# CI_PROJECT_DIR and the job's `variables:`. Each on a fresh HOME, the built
# opkit on PATH instead of the `Install opkit` step and `before_script:`, `sdk
# fetch` reading a local index holding the real wheels (as docs_quick_start).
# Every step must pass; the JUnit reports validate against junit-10.xsd with a
# case per library and version; the wheel is in dist/; every cached path exists
# afterwards, and every file a cache key hashes.
source "$(dirname "$0")/common.sh"
unset PIP_INDEX_URL XDG_CACHE_HOME CCACHE_DIR OPKIT_HOME OPKIT_VENVS OPKIT_CUDA_TOOLCHAINS OPKIT_CONFIG
export TF_CPP_MIN_LOG_LEVEL=3
python3 -c 'import yaml' 2>/dev/null || fail "no PyYAML for python3: install Debian's python3-yaml (scripts/setup.sh)"

# --- the recipes, as shell scripts and the facts to check afterwards
python3 - "$OPKIT_SOURCE_DIR/docs/ci.md" "$work" <<'PY' || fail "docs/ci.md's recipes cannot be run as written"
import json, re, shlex, sys
import yaml

text, out = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]

def block(marker):
    match = re.search(r"<!-- %s -->\n```yaml\n(.*?)\n```\n<!-- /%s -->" % (marker, marker), text, re.S)
    if not match:
        sys.exit("docs/ci.md has no <!-- %s --> yaml block" % marker)
    return yaml.safe_load(match.group(1))

def exports(env):
    # GitHub passes env values as they are; GitLab expands $VARS in variables, as bash's "..." does.
    return "".join("export %s=%s\n" % (name, shlex.quote(str(value))) for name, value in (env or {}).items())

def no_expressions(what, value):
    if "${{" in json.dumps(value):
        sys.exit("%s uses a ${{ }} expression, which a runner substitute cannot evaluate: %s" % (what, value))

github = block("ci-github")
(job_name, job), = github["jobs"].items()
assert github.get("defaults", {}).get("run", {}).get("shell") == "bash", "the workflow's steps must run in bash"
no_expressions("the job's env", job.get("env"))
steps, caches, hashed, outputs = [], [], [], []
for step in job["steps"]:
    name = step.get("name", step.get("uses", ""))
    if step.get("name") == "Install opkit":
        continue  # the one step not run: the built opkit is on PATH instead
    if "run" in step:
        no_expressions("step " + name, [step["run"], step.get("env")])
        steps.append({"name": name, "script": exports(job.get("env")) + exports(step.get("env")) + step["run"]})
    elif step.get("uses", "").startswith("actions/cache@"):
        caches += step["with"]["path"].split("\n")
        hashed += re.findall(r"hashFiles\('([^']+)'\)", step["with"]["key"])
    else:  # a report or artifact step: the files it takes must be there afterwards
        outputs += [v for k, v in step.get("with", {}).items() if k in ("path", "report_paths")]
if len(steps) < 5 or not caches:
    sys.exit("the workflow has %d run steps and %d cached paths" % (len(steps), len(caches)))

gitlab = block("ci-gitlab")
(name, gl_job), = gitlab.items()
gl_script = "".join("export %s=\"%s\"\n" % (k, v) for k, v in gl_job.get("variables", {}).items())
gl_script += "\n".join(gl_job["script"]) + "\n"
gl_caches = [p for cache in gl_job["cache"] for p in cache["paths"]]
json.dump({"steps": steps, "caches": [c for c in caches if c.strip()], "hashed": hashed, "outputs": outputs,
           "gitlab_script": gl_script, "gitlab_caches": gl_caches,
           "gitlab_outputs": [gl_job["artifacts"]["reports"]["junit"]] + gl_job["artifacts"]["paths"]},
          open(out + "/recipes.json", "w"), indent=1)
PY

# --- the local index, and opkit on PATH
mkdir -p "$work/index" "$work/bin"
ln -s "$(wheel_for 1.12.0)" "$(wheel_for 2.10.1)" "$work/index/"
ln -s "$OPKIT" "$work/bin/opkit"
serve_index "$work/index"
trap 'kill "$index_server" 2>/dev/null || true' EXIT
export OPKIT_INDEX_URL="$index_url"
export PATH="$work/bin:$PATH"

# --- the repository under CI: a project targeting the two versions, twice (one checkout per CI system)
mkdir -p "$work/gitlab-home" "$work/new-home" "$work/tmp"
(HOME="$work/new-home" "$OPKIT" new demo_ops --template tensorflow-op --tf 1.12.0,2.10.1 --output "$work/github") \
  >"$work/new.out" 2>&1 || { cat "$work/new.out" >&2; fail "opkit new failed"; }
cp -r "$work/github" "$work/gitlab"
# The GitHub job's fresh HOME is the GitLab checkout's folder: its ~/.cache is
# where the GitLab job's variables put opkit's store and ccache, so the GitLab
# job runs as a later pipeline does, on the caches the first one left.
github_home="$work/gitlab"

# --- GitHub Actions: each run step in its own shell, as the runner does
SECONDS=0
step_count=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["steps"]))' "$work/recipes.json")
for ((i = 0; i < step_count; i++)); do
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["steps"][int(sys.argv[2])]; print(s["name"]); open(sys.argv[3], "w").write(s["script"])' \
    "$work/recipes.json" "$i" "$work/step.sh" >"$work/step.name"
  rc=0
  (cd "$work/github" && env HOME="$github_home" GITHUB_ACTIONS=true CI=true GITHUB_WORKSPACE="$work/github" \
    RUNNER_TEMP="$work/tmp" bash --noprofile --norc -eo pipefail "$work/step.sh") \
    >"$work/github-step-$i.out" 2>"$work/github-step-$i.err" || rc=$?
  if [ "$rc" -ne 0 ]; then
    tail -n 30 "$work/github-step-$i.out" "$work/github-step-$i.err" >&2
    fail "GitHub step '$(cat "$work/step.name")' failed (exit $rc)"
  fi
done

echo "the GitHub steps: ${SECONDS} s"
# --- GitLab CI: the script lines in one shell, in the project folder, its caches restored
SECONDS=0
rc=0
(cd "$work/gitlab" && python3 -c 'import json,sys; sys.stdout.write(json.load(open(sys.argv[1]))["gitlab_script"])' \
  "$work/recipes.json" >"$work/gitlab.sh" &&
  env HOME="$work/gitlab-home" CI=true GITLAB_CI=true CI_PROJECT_DIR="$work/gitlab" CI_COMMIT_REF_SLUG=main \
    bash --noprofile --norc -eo pipefail -x "$work/gitlab.sh") >"$work/gitlab.out" 2>"$work/gitlab.err" || rc=$?
if [ "$rc" -ne 0 ]; then
  tail -n 30 "$work/gitlab.out" "$work/gitlab.err" >&2
  fail "the GitLab job's script failed (exit $rc)"
fi

echo "the GitLab job: ${SECONDS} s"
# --- what both left: reports, wheels, cached folders
for checkout in github gitlab; do
  dir="$work/$checkout"
  reports=("$dir"/reports/*.xml)
  [ "${#reports[@]}" -eq 2 ] || fail "$checkout: expected 2 JUnit reports in reports/, got ${reports[*]}"
  expect_junit_xsd "${reports[@]}"
  python3 - "$dir/reports/opkit-test.xml" "$dir/reports/opkit-check.xml" <<'PY' || fail "$checkout: the JUnit reports lack a case"
import sys, xml.etree.ElementTree as ET
for path, prefix in ((sys.argv[1], "opkit.test.tensorflow-"), (sys.argv[2], "opkit.check.tensorflow ")):
    cases = ET.parse(path).getroot().findall("./testsuite/testcase")
    versions = sorted(c.get("classname")[len(prefix):].split(" ")[0] for c in cases if c.get("classname").startswith(prefix))
    assert versions == ["1.12.0", "2.10.1"], (path, [c.attrib for c in cases])
    assert all(c.find("failure") is None and c.find("error") is None for c in cases), path
PY
  ls "$dir"/dist/demo_ops-*.whl >/dev/null 2>&1 || fail "$checkout: no wheel in dist/"
done
# The restored caches served: nothing fetched again, objects from ccache.
expect_contains "$work/gitlab.out" '^tensorflow-1\.12\.0: already in the store'
expect_contains "$work/gitlab.out" '^tensorflow-2\.10\.1: already in the store'
[ "$(grep -Ec 'ccache: [1-9][0-9]* hits?' "$work/gitlab.out")" -eq 2 ] ||
  { cat "$work/gitlab.out" >&2; fail "GitLab: the restored ccache gave no hits"; }
python3 - "$work/recipes.json" "$work" <<'PY' || fail "a cached path is not where opkit and ccache write"
import glob, json, os, sys
recipes, work = json.load(open(sys.argv[1])), sys.argv[2]
missing = []
for path in recipes["caches"]:
    full = path.replace("~", work + "/gitlab", 1)  # the GitHub job's HOME
    if not os.path.isdir(full) or not os.listdir(full):
        missing.append("GitHub: " + path)
for name in recipes["hashed"]:
    if not os.path.isfile(os.path.join(work, "github", name)):
        missing.append("GitHub: the key hashes " + name + ", which the checkout lacks")
for pattern in recipes["outputs"]:
    if not glob.glob(os.path.join(work, "github", pattern)):
        missing.append("GitHub: a step takes " + pattern + ", which matches nothing")
for pattern in recipes["gitlab_outputs"]:
    if not glob.glob(os.path.join(work, "gitlab", pattern)):
        missing.append("GitLab: the artifacts take " + pattern + ", which matches nothing")
for path in recipes["gitlab_caches"]:
    if not os.path.isdir(os.path.join(work, "gitlab", path)) or not os.listdir(os.path.join(work, "gitlab", path)):
        missing.append("GitLab: " + path)
for line in missing:
    print("NOT MADE: " + line, file=sys.stderr)
sys.exit(1 if missing else 0)
PY
# Nothing went to the HOME the GitLab job moved the store and ccache away from.
for left in .cache/opkit .cache/ccache; do
  [ ! -e "$work/gitlab-home/$left" ] || fail "GitLab: ~/$left written, outside the cached paths"
done
rm -rf "$work/gitlab/.cache" # the store and ccache: hundreds of MB, checked
echo "PASS: $test_name"
