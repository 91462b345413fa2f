# Every `opkit …` command README.md and docs/*.md show parses with opkit's own
# command line: each is run as `OPKIT_PARSE_ONLY=1 opkit ARGS`, which parses
# ARGS with the real CLI11 tree and runs nothing (exit 0 when they parse, 2
# when not). A stale flag or command in the docs fails this test.
#
# What counts as a command: in code (fenced blocks, 4-space indented blocks and
# inline `code` spans), a line or span that starts with `opkit ` (after a
# `$ ` prompt), and `$(opkit ...)` or `<(opkit ...)` in a line that does not. The words are split as the shell splits them; a `# comment`
# ends the command, and so does a shell operator (`|`, `>`, `<`, `&&`, `;`,
# `2>`, ...). Synopsis lines are parsed too, made concrete:
#   - an optional group `[...]` is kept without its brackets, and of
#     alternatives (`a|b`, `--cache|--no-cache`, `--easyrec V | --easyrec-dir DIR`)
#     the first is taken; a repeat mark `...` is dropped;
#   - placeholders get sample values: UPPERCASE words (VERSION, DIR, FILE, N,
#     V1,V2, ...) and `<name>`-style words, from the table SAMPLES below
#     (any other one: `sample`); a `...` standing for a value (`--tf ...`)
#     becomes `sample`; `…` (an elided part) is dropped.
# An inline span that names a command in prose and would need more to run
# (`opkit check --profile`, `opkit sdk add`: exit 2 for a missing argument or
# subcommand) passes when `opkit <the command's words> --help` shows that very
# command's usage and lists each option the span names (a stale name fails
# either way).
# Skipped: a line or span carrying the comment `# error example` (a command
# shown failing on purpose, e.g. `opkit buld`; the test lists them), and
# `opkit 0.1.0` (the output of `opkit --version`, not a command).
source "$(dirname "$0")/common.sh"

python3 - "$OPKIT" "$OPKIT_SOURCE_DIR" <<'PY' || fail "a command in the docs does not parse (above)"
import glob, os, re, shlex, subprocess, sys

opkit, source = sys.argv[1], sys.argv[2]
files = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
if len(files) < 11:
    sys.exit("expected README.md and the docs/ pages, found %d files" % len(files))

SAMPLES = {
    "VERSION": "2.10.1", "V": "2.10.1", "V1,V2": "1.12,2.10.1", "DIR": "some/dir", "EXPORT_DIR": "export",
    "FILE": "some.file", "N": "2", "NAME": "name", "URL": "https://example.invalid/upload", "KEY": "home",
    "VALUE": "value", "SDK": "tensorflow-2.10.1", "LIB": "build/tf-2.10.1/libop.so", "R": "host",
    "T": "tensorflow-op", "PATH": "/usr/bin/protoc", "PEM": "ca.pem", "BASELINE": "x86-64-v2",
    "COMMAND": "sdk", "SUBCOMMAND": "add", "REQ": "tensorflow>=2", "SHELL": "bash", "WHEEL": "tf.whl",
    "<name>": "my_op", "<wheel-or-folder>": "tf.whl", "<the root>": "root.json",
}
OPERATORS = {"|", "||", "&&", ";", "&", ">", ">>", "<", "2>", "2>&1", "&>", "<<", "<<<", ")"}

def code_texts(path):
    """(line number, text, inline) of each code line and inline code span in a markdown file."""
    fenced = False
    for number, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            yield number, line.strip(), False
        else:
            for span in re.findall(r"``?([^`]+)``?", line):
                yield number, span.strip(), True

def concrete(text):
    """The synopsis made concrete: brackets, alternatives, repeats and placeholders resolved."""
    text = text.replace("…", " ")
    text = re.sub(r"<[a-z][a-z -]*>", lambda m: SAMPLES.get(m.group(0), "sample"), text)
    # Innermost optional groups first: keep the first alternative, without brackets.
    while True:
        new = re.sub(r"\[([^\[\]]*)\]", lambda m: re.split(r"\s*\|\s*", m.group(1))[0], text)
        if new == text:
            break
        text = new
    text = re.sub(r"(?<=\s)\.\.\.(?=\s|$)", "sample", text)   # a value elided: `--tf ...`
    text = text.replace("...", " ")                                # a repeat mark: `NAME]...`, `LIB...`
    words = []
    for word in text.split():
        if "|" in word and not word.startswith("'"):
            word = word.split("|")[0]
        if word in SAMPLES:
            word = SAMPLES[word]
        elif re.fullmatch(r"[A-Z][A-Z0-9_]*(,[A-Z][A-Z0-9_]*)*", word):
            word = "sample"
        words.append(word)
    return " ".join(words)

def argv_of(text):
    """The arguments after `opkit`, or None when the text is not a command to check."""
    text = re.sub(r"^\$ ", "", text)
    substituted = re.search(r"[$<]\((opkit [^)]*)\)", text)   # $(opkit config get venvs), <(opkit completion bash)
    if substituted and not text.startswith("opkit "):
        text = substituted.group(1)
    if not text.startswith("opkit "):
        return None
    if re.search(r"#\s*error example\b", text):
        return "error example"
    if re.match(r"opkit [0-9]", text):
        return None   # output (`opkit 0.1.0`), not a command
    text = concrete(text)
    try:
        words = shlex.split(text, comments=True)
    except ValueError as e:
        raise SystemExit("cannot split %r: %s" % (text, e))
    args = []
    for word in words[1:]:
        if word in OPERATORS or re.match(r"^[0-9]?[<>]", word):
            break
        args.append(word)
    return args

def parse(args):
    env = dict(os.environ, OPKIT_PARSE_ONLY="1")
    return subprocess.run([opkit] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, cwd=os.environ.get("TMPDIR", "/tmp"))

def reference_problem(args):
    """None when ARGS name a command and some of its options, values left out or not
    (prose: `opkit check --profile`, `opkit sdk add`, `opkit check --tf 2.10.1`): --help
    on the command shows that very command's usage, listing each option."""
    first_option = next((i for i, a in enumerate(args) if a.startswith("-")), len(args))
    path, options = args[:first_option], [a for a in args[first_option:] if a.startswith("-")]
    shown = parse(path + ["--help"])
    usage = re.search(r"^Usage: opkit((?: [a-z][a-z-]*)*)", shown.stdout, re.M)
    if shown.returncode != 0 or not usage or usage.group(1).split() != path:
        return "no command 'opkit %s'" % " ".join(path)
    for option in options:
        if not re.search(r"(^|[ ,])%s([ ,]|$)" % re.escape(option), shown.stdout, re.M):
            return "opkit %s has no option %s" % (" ".join(path), option)
    return None

checked, references, skipped, failed, seen = 0, 0, [], [], set()
for path in files:
    name = os.path.relpath(path, source)
    for number, text, inline in code_texts(path):
        args = argv_of(text)
        if args is None:
            continue
        where = "%s:%d" % (name, number)
        if args == "error example":
            skipped.append("%s: %s" % (where, text))
            continue
        key = (tuple(args), inline)
        if key in seen:
            continue
        seen.add(key)
        result = parse(args)
        checked += 1
        if (result.returncode == 2 and inline and
                re.search(r": missing (?:[A-Z_]+|--?[a-z-]+) \(|: --?[a-z-]+ needs a value \(|missing the command", result.stderr)):
            problem = reference_problem(args)
            if problem is None:
                references += 1
                continue
            result.stderr += " (as a name: %s)" % problem
        if result.returncode != 0:
            failed.append("%s: %s\n    as: opkit %s\n    exit %d: %s" % (where, text, " ".join(map(shlex.quote, args)),
                          result.returncode, (result.stderr or result.stdout).strip()))
print("error examples, not checked (%d):" % len(skipped))
for line in skipped:
    print("  " + line)
if checked < 60:
    sys.exit("only %d distinct commands found in the docs; the extraction is broken" % checked)
for line in failed:
    print("DOES NOT PARSE " + line, file=sys.stderr)
print("%d distinct commands checked (%d of them names in prose, with their options), %d failed"
      % (checked, references, len(failed)))
sys.exit(1 if failed else 0)
PY
echo "PASS: $test_name"
