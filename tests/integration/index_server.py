#!/usr/bin/env python3
"""A package index for opkit's integration tests (Python 3 standard library only).

    python3 index_server.py --root DIR --port-file FILE [--mode MODE[,MODE...]] [--log FILE] [--rate MB/S]

Serves the wheels (*.whl, symlinks followed) in DIR on 127.0.0.1 at a free
port, written to FILE once the server listens; it serves until killed.

  /simple/                  the project list, PEP 503 HTML or PEP 691 JSON
  /simple/<name>/           a project's files, HTML or JSON: JSON when the
                            Accept header prefers application/vnd.pypi.simple.v1+json
                            (or ...latest+json); a name that is not normalized
                            (or lacks its slash) is redirected (301) to the one that is
  /files/<file>             the wheel's bytes, streamed from disk, with Range
                            support (206 + Content-Range; 416 past the end)

A wheel's project is the first field of its file name, normalized as PEP 503
says (tensorflow_cpu-2.10.1-... is tensorflow-cpu). Its sha256 is computed once
at startup and cached in DIR/.sha256-<file> (reused while the size and mtime
match). data-requires-python comes from the wheel's METADATA when the file is a
zip that has one; dummy files (any bytes, only listed) have none. Links are
relative ("../../files/<file>#sha256=<hex>"), in the JSON too, as PEP 691 allows.

With --rate, each file answer is paced to at most that many MB (10^6 bytes)
per second, as a link of that speed would deliver it (the benchmark's
stand-in for a real network; loopback is not one).

Modes (comma-separated) for fault injection:
  cut-once   the first GET of each file sends about half of the body, then
             closes the connection; later requests behave
  corrupt    file bytes are served with a few bytes flipped (at 1/3, 1/2 and 2/3
             of the file) while the index advertises the true sha256
  json-only  project pages only as JSON (406 to a client that does not accept it)
  html-only  project pages only as HTML, whatever the Accept header says
  redirect   links point at /redirect/<file>, which answers 302 to /files/<file>
             (as an index sends downloads to a file host)
  ignore-ranges  file requests get the whole file (200, no Accept-Ranges),
             whatever their Range header asks, as some servers answer
  unknown-size   file answers say no size: no Content-Length (the body ends
             when the connection closes), a 206's Content-Range "bytes a-b/*"
  single-quote   HTML pages quote their attributes with ' (href='...'), as HTML allows
  scheme-relative  links are "//127.0.0.1:<port>/files/<file>" (HTML and JSON),
             as an index links to its file host
  trickle    every body (pages and files) is sent one byte per second, as a
             broken mirror or proxy sends it

A request path that starts with "//" (what a client makes of a scheme-relative
link it resolved as a relative path) answers 404, as real servers do.

Each request is logged as one line, to stderr or to --log FILE:
  GET /files/x.whl range=bytes=100- status=206 sent=1234
  GET /simple/x/ range=- status=200 sent=512 format=json
("sent" counts the body bytes written to the socket, also when the client
went away before the end (then "client-gone" follows); a cut-once answer
shows "cut").
"""

import argparse
import hashlib
import html
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.parse
import zipfile
from email.parser import HeaderParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
HTML_TYPE = "application/vnd.pypi.simple.v1+html"
CHUNK = 1 << 20
SEND_CHUNK = 1 << 18  # what one sendfile call sends: the most "sent" can miss when a client goes away
MODES = {"normal", "cut-once", "corrupt", "json-only", "html-only", "redirect", "ignore-ranges", "unknown-size",
         "single-quote", "scheme-relative", "trickle"}


def normalize(name):
    """PEP 503."""
    return re.sub(r"[-_.]+", "-", name).lower()


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def cached_sha256(root, name, path):
    """The file's sha256, from DIR/.sha256-<file> while its size and mtime match."""
    st = os.stat(path)
    stamp = f"{st.st_size} {st.st_mtime_ns}"
    cache = os.path.join(root, f".sha256-{name}")
    try:
        with open(cache) as f:
            hexdigest, _, cached_stamp = f.read().strip().partition(" ")
        if cached_stamp == stamp and re.fullmatch(r"[0-9a-f]{64}", hexdigest):
            return hexdigest
    except OSError:
        pass
    hexdigest = sha256_of(path)
    try:
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(f"{hexdigest} {stamp}\n")
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only folder: hash again next time
    return hexdigest


def requires_python(path):
    """Requires-Python from a wheel's METADATA; None for a dummy or a wheel without it."""
    try:
        with zipfile.ZipFile(path) as wheel:
            names = [n for n in wheel.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
            if len(names) != 1:
                return None
            metadata = HeaderParser().parsestr(wheel.read(names[0]).decode("utf-8", "replace"))
            value = metadata.get("Requires-Python")
            return value.strip() if value else None
    except (OSError, zipfile.BadZipFile, ValueError):
        return None


class Wheel:
    def __init__(self, root, name):
        self.name = name
        self.path = os.path.join(root, name)
        self.size = os.stat(self.path).st_size
        self.project = normalize(name.split("-", 1)[0])
        self.sha256 = cached_sha256(root, name, self.path)
        self.requires_python = requires_python(self.path)


def scan(root):
    wheels = {}
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.endswith(".whl") and not name.startswith(".") and "-" in name and os.path.isfile(path):
            wheels[name] = Wheel(root, name)
    return wheels


def parse_range(header, size):
    """(first, last) for one "bytes=" range, "unsatisfiable", or None to send the whole file."""
    if not header:
        return None
    match = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if not match or (match.group(1) == "" and match.group(2) == ""):
        return None  # several ranges or a bad one: a server may ignore Range
    first, last = match.group(1), match.group(2)
    if first == "":  # the last N bytes
        suffix = int(last)
        if suffix == 0:
            return "unsatisfiable"
        return (max(0, size - suffix), size - 1)
    first = int(first)
    last = size - 1 if last == "" else min(int(last), size - 1)
    if first >= size:
        return "unsatisfiable"
    if first > last:
        return None  # invalid: ignored, as RFC 9110 says
    return (first, last)


def accepts_json(accept):
    """Whether the Accept header prefers PEP 691 JSON to HTML."""
    best_json, best_html = 0.0, 0.0
    for item in (accept or "").split(","):
        parts = [p.strip() for p in item.split(";")]
        media = parts[0].lower()
        q = 1.0
        for param in parts[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media in (JSON_TYPE, "application/vnd.pypi.simple.latest+json"):
            best_json = max(best_json, q)
        elif media in (HTML_TYPE, "application/vnd.pypi.simple.latest+html", "text/html", "*/*"):
            best_html = max(best_html, q)
    return best_json > 0 and best_json >= best_html


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, root, wheels, modes, log, rate=None):
        super().__init__(address, Handler)
        self.root = root
        self.wheels = wheels
        self.modes = modes
        self.log = log
        self.rate = rate  # bytes per second for file answers; None: as fast as it goes
        self.lock = threading.Lock()
        self.gets = {}  # file name -> GETs so far (cut-once)

    def write_log(self, line):
        with self.lock:
            self.log.write(line + "\n")
            self.log.flush()

    def first_get(self, name):
        with self.lock:
            self.gets[name] = self.gets.get(name, 0) + 1
            return self.gets[name] == 1


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "opkit-test-index/1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # one line per request, written by finish_log

    def do_GET(self):
        self.handle_request(head=False)

    def do_HEAD(self):
        self.handle_request(head=True)

    def handle_request(self, head):
        self.sent = 0
        self.note = ""
        self.cut = False
        self.code = 0
        try:
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            if self.path.startswith("//"):  # urlsplit would take what follows for a host
                self.send_text(404, "not found\n", head)
            elif path == "/simple" or path.startswith("/simple/"):
                self.serve_simple(path, head)
            elif path.startswith("/files/"):
                self.serve_file(path[len("/files/"):], head)
            elif path.startswith("/redirect/"):
                self.redirect(302, "/files/" + urllib.parse.quote(path[len("/redirect/"):]))
            else:
                self.send_text(404, "not found\n", head)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.note += " client-gone"
        finally:
            self.server.write_log(
                f"{self.command} {self.path} range={self.headers.get('Range', '-').replace(' ', '')} "
                f"status={self.code} sent={self.sent}{' cut' if self.cut else ''}{self.note}"
            )

    # --- responses

    def start(self, code, headers):
        self.code = code
        self.send_response(code)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def send_body(self, code, content_type, body, head, extra=()):
        self.start(code, [("Content-Type", content_type), ("Content-Length", str(len(body))), *extra])
        if not head and "trickle" in self.server.modes:
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                self.sent += 1
                time.sleep(1)
        elif not head:
            self.wfile.write(body)
            self.sent = len(body)

    def send_text(self, code, text, head, extra=()):
        self.send_body(code, "text/plain; charset=utf-8", text.encode(), head, extra)

    def redirect(self, code, location):
        self.send_text(code, f"see {location}\n", head=self.command == "HEAD", extra=[("Location", location)])

    # --- the simple API

    def serve_simple(self, path, head):
        if not path.endswith("/"):
            self.redirect(301, path + "/")
            return
        parts = [p for p in path.split("/") if p]
        if len(parts) == 1:
            self.serve_project_list(head)
            return
        if len(parts) != 2:
            self.send_text(404, "not found\n", head)
            return
        name = parts[1]
        if normalize(name) != name:
            self.redirect(301, f"/simple/{urllib.parse.quote(normalize(name))}/")
            return
        files = [w for w in self.server.wheels.values() if w.project == name]
        if not files:
            self.send_text(404, f"no project {name}\n", head)
            return
        want_json = self.choose_json(head)
        if want_json is None:
            return
        prefix = "../../redirect/" if "redirect" in self.server.modes else "../../files/"
        if "scheme-relative" in self.server.modes:
            host, port = self.server.server_address[:2]
            prefix = f"//{host}:{port}{prefix[len('../..'):]}"
        if want_json:
            document = {
                "meta": {"api-version": "1.0"},
                "name": name,
                "files": [
                    {
                        "filename": w.name,
                        "url": prefix + urllib.parse.quote(w.name),
                        "hashes": {"sha256": w.sha256},
                        "requires-python": w.requires_python,
                        "yanked": False,
                    }
                    for w in files
                ],
            }
            self.note = " format=json"
            self.send_body(200, JSON_TYPE, json.dumps(document, indent=1).encode(), head)
            return
        links = []
        q = "'" if "single-quote" in self.server.modes else '"'
        for w in files:
            href = html.escape(f"{prefix}{urllib.parse.quote(w.name)}#sha256={w.sha256}")
            requires = ""
            if w.requires_python:
                requires = f" data-requires-python={q}{html.escape(w.requires_python)}{q}"
            links.append(f"    <a href={q}{href}{q}{requires}>{html.escape(w.name)}</a><br/>")
        page = (
            "<!DOCTYPE html>\n<html>\n  <head>\n"
            '    <meta name="pypi:repository-version" content="1.0">\n'
            f"    <title>Links for {html.escape(name)}</title>\n  </head>\n  <body>\n"
            f"    <h1>Links for {html.escape(name)}</h1>\n" + "\n".join(links) + "\n  </body>\n</html>\n"
        )
        self.note = " format=html"
        self.send_body(200, self.html_type(), page.encode(), head)

    def serve_project_list(self, head):
        projects = sorted({w.project for w in self.server.wheels.values()})
        want_json = self.choose_json(head)
        if want_json is None:
            return
        if want_json:
            document = {"meta": {"api-version": "1.0"}, "projects": [{"name": p} for p in projects]}
            self.note = " format=json"
            self.send_body(200, JSON_TYPE, json.dumps(document, indent=1).encode(), head)
            return
        links = "\n".join(f'    <a href="{urllib.parse.quote(p)}/">{html.escape(p)}</a><br/>' for p in projects)
        page = (
            "<!DOCTYPE html>\n<html>\n  <head>\n"
            '    <meta name="pypi:repository-version" content="1.0">\n'
            "    <title>Simple index</title>\n  </head>\n  <body>\n" + links + "\n  </body>\n</html>\n"
        )
        self.note = " format=html"
        self.send_body(200, self.html_type(), page.encode(), head)

    def choose_json(self, head):
        """True for JSON, False for HTML, None when a 406 was sent."""
        modes = self.server.modes
        if "html-only" in modes:
            return False
        wanted = accepts_json(self.headers.get("Accept"))
        if "json-only" in modes and not wanted:
            self.send_text(406, f"this index serves only {JSON_TYPE}\n", head)
            return None
        return wanted

    def html_type(self):
        accept = (self.headers.get("Accept") or "").lower()
        return HTML_TYPE if HTML_TYPE in accept else "text/html; charset=utf-8"

    # --- files

    def serve_file(self, name, head):
        wheel = self.server.wheels.get(name)
        if wheel is None or "/" in name:
            self.send_text(404, f"no file {name}\n", head)
            return
        size = wheel.size
        ignore_ranges = "ignore-ranges" in self.server.modes
        span = None if ignore_ranges else parse_range(self.headers.get("Range"), size)
        if span == "unsatisfiable":
            self.send_text(416, "range not satisfiable\n", head, extra=[("Content-Range", f"bytes */{size}")])
            return
        headers = [("Content-Type", "application/octet-stream"), ("ETag", f'"{wheel.sha256[:16]}"')]
        if not ignore_ranges:
            headers.append(("Accept-Ranges", "bytes"))
        unknown_size = "unknown-size" in self.server.modes
        if span is None:
            code, first, last = 200, 0, size - 1
        else:
            code, (first, last) = 206, span
            headers.append(("Content-Range", f"bytes {first}-{last}/{'*' if unknown_size else size}"))
        length = last - first + 1 if size > 0 else 0
        if unknown_size:
            self.close_connection = True  # the only end the body has
            headers.append(("Connection", "close"))
        else:
            headers.append(("Content-Length", str(length)))
        self.start(code, headers)
        if head or length == 0:
            return
        count = length
        if "cut-once" in self.server.modes and self.server.first_get(name):
            count = length // 2
            self.cut = True
        with open(wheel.path, "rb") as f:
            if "corrupt" in self.server.modes:
                self.send_corrupted(f, size, first, count)
            else:
                self.send_from(f, first, count)
        if self.cut:
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)  # before the promised length: the client sees EOF
            except OSError:
                pass

    def send_from(self, f, first, count):
        """Sends count bytes of f from first on (os.sendfile: no copy through Python), in
        pieces, so self.sent counts what went out also when the client goes away
        (all but the piece under way)."""
        position, end = first, first + count
        start = time.monotonic()
        while position < end:
            piece = min(SEND_CHUNK, end - position)
            if "trickle" in self.server.modes:
                piece = 1
                time.sleep(1)
            elif self.server.rate:  # a piece leaves once the link would have carried it
                ahead = (self.sent + piece) / self.server.rate - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)
            sent = self.connection.sendfile(f, position, piece)
            if sent == 0:
                break
            self.sent += sent
            position += sent

    def send_corrupted(self, f, size, first, count):
        flips = sorted({size // 3, size // 2, (2 * size) // 3})
        f.seek(first)
        position = first
        end = first + count
        while position < end:
            block = bytearray(f.read(min(CHUNK, end - position)))
            if not block:
                break
            for flip in flips:
                if position <= flip < position + len(block):
                    block[flip - position] ^= 0xFF
            self.wfile.write(block)
            self.sent += len(block)
            position += len(block)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True, help="the folder holding the *.whl files")
    parser.add_argument("--port-file", required=True, help="written with the port once the server listens")
    parser.add_argument("--mode", default="normal", help="normal, or a comma-separated list of: " +
                        ", ".join(sorted(MODES - {"normal"})))
    parser.add_argument("--log", help="append the request log here instead of stderr")
    parser.add_argument("--rate", type=float, help="pace file answers to this many MB/s")
    args = parser.parse_args()

    modes = {m.strip() for m in args.mode.split(",") if m.strip()}
    unknown = modes - MODES
    if unknown:
        parser.error(f"unknown mode(s): {', '.join(sorted(unknown))}")
    if "json-only" in modes and "html-only" in modes:
        parser.error("json-only and html-only exclude each other")
    if not os.path.isdir(args.root):
        parser.error(f"{args.root}: not a folder")

    wheels = scan(args.root)
    log = open(args.log, "a", buffering=1) if args.log else sys.stderr
    if args.rate is not None and args.rate <= 0:
        parser.error("--rate must be positive")
    server = Server(("127.0.0.1", 0), args.root, wheels, modes, log, args.rate * 1e6 if args.rate else None)
    port = server.server_address[1]
    tmp = f"{args.port_file}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{port}\n")
    os.replace(tmp, args.port_file)  # readers never see a half-written port
    print(f"index_server: serving {len(wheels)} wheel(s) from {args.root} on http://127.0.0.1:{port}/simple/ "
          f"(mode {','.join(sorted(modes))}{f', {args.rate} MB/s' if args.rate else ''})", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
