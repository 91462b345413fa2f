"""The {{name}} operator's test, run by `opkit test` in a venv with the requirements.

Generates the gRPC stubs from rpc/rpc.proto, starts server.py on loopback on a
free port, and calls Identity, Healthy and Execute with a real client. The
vectors must have the dimension custom_operator.py declares. The server is
stopped on every way out, failures included.
"""
import ast
import base64
import functools
import http.server
import io
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

try:
    import grpc
    import numpy as np
    import yaml
    from PIL import Image
except ImportError as e:
    sys.exit(f"FAIL: {e.name} is missing: run this through `opkit test`, "
             "or pip install -r requirements.txt pyyaml")

ROOT = os.environ.get("OPKIT_PROJECT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START_TIMEOUT_S = 30
CALL_TIMEOUT_S = 30
# No proxy: one set in the environment must not intercept loopback calls. Short
# reconnect backoff: the first attempts come before the server listens.
CHANNEL_OPTIONS = [("grpc.enable_http_proxy", 0), ("grpc.initial_reconnect_backoff_ms", 100),
                   ("grpc.min_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 500)]


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def declared_dimension():
    """DIMENSION from custom_operator.py's source: read, not imported, so the
    declaration is checked independently of what the running server does."""
    path = os.path.join(ROOT, "custom_operator.py")
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in tree.body:
        if (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["DIMENSION"]
                and isinstance(node.value, ast.Constant) and type(node.value.value) is int):
            return node.value.value
    raise Failure("custom_operator.py: no module-level `DIMENSION = <int>`")


def manifest():
    with open(os.path.join(ROOT, "opkit.yaml")) as f:
        doc = yaml.safe_load(f)
    return {"name": doc["name"], "input": doc["op"]["inputs"][0]["name"],
            "output": doc["op"]["outputs"][0]["name"]}


def generate_stubs(out):
    os.makedirs(out)
    command = [sys.executable, "-m", "grpc_tools.protoc", "-I", os.path.join(ROOT, "rpc"),
               "--python_out=" + out, "--grpc_python_out=" + out, os.path.join(ROOT, "rpc", "rpc.proto")]
    result = subprocess.run(command, capture_output=True, text=True)
    check(result.returncode == 0, f"grpc_tools.protoc failed on rpc/rpc.proto:\n{result.stderr}")
    print("protoc: generated rpc_pb2.py and rpc_pb2_grpc.py from rpc/rpc.proto")


def png(pixels):
    buffer = io.BytesIO()
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def test_images():
    """Two images with different colours, made here, so the test needs no files."""
    ramp = np.linspace(0, 255, 64)
    gradient = np.stack(np.broadcast_arrays(ramp[None, :], ramp[:, None] * 0.2, np.zeros((64, 64))), axis=-1)
    squares = (np.indices((64, 64)).sum(axis=0) // 8) % 2
    checkerboard = np.stack([np.zeros((64, 64)), squares * 200, (1 - squares) * 180 + 40], axis=-1)
    return png(gradient), png(checkerboard)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FileServer:
    """Serves a folder over HTTP on loopback: what Execute's urls point at."""

    def __init__(self, folder):
        handler = functools.partial(QuietHandler, directory=folder)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class OperatorServer:
    """server.py as a subprocess, configured the way Docker or Phantoscope would."""

    def __init__(self, stubs, tmp):
        self.endpoint = "127.0.0.1:%d" % free_port()
        self.log_path = os.path.join(tmp, "server.log")
        env = dict(os.environ, OP_ENDPOINT=self.endpoint, OP_BIND_HOST="127.0.0.1", device_id="/cpu:0",
                   UPLOAD_FOLDER=tmp, PYTHONPATH=stubs, PYTHONUNBUFFERED="1")
        # The server fetches urls from the loopback file server: never through a proxy.
        env["no_proxy"] = env["NO_PROXY"] = "127.0.0.1,localhost"
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen([sys.executable, os.path.join(ROOT, "server.py")], cwd=ROOT, env=env,
                                            stdout=log, stderr=subprocess.STDOUT)
        print(f"server: started server.py (pid {self.process.pid}) with OP_ENDPOINT={self.endpoint}")

    def log_tail(self, lines=20):
        with open(self.log_path) as f:
            return "".join(f.readlines()[-lines:])

    def wait_ready(self, channel):
        ready = grpc.channel_ready_future(channel)
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                ready.result(timeout=0.2)
                return
            except grpc.FutureTimeoutError:
                code = self.process.poll()
                check(code is None, f"server.py exited with {code} before serving")
                check(time.monotonic() < deadline,
                      f"server.py did not serve {self.endpoint} within {START_TIMEOUT_S} s")

    def stop(self):
        """SIGTERM (what docker stop sends), then SIGKILL if it lingers. Returns the exit code."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        print(f"server: server.py (pid {self.process.pid}) stopped, exit {self.process.returncode}")
        return self.process.returncode


def call(stub, method, request):
    check(hasattr(stub, method), f"rpc/rpc.proto: service Operator has no rpc {method}")
    try:
        return getattr(stub, method)(request, timeout=CALL_TIMEOUT_S)
    except grpc.RpcError as e:
        raise Failure(f"{method}: {e.code().name}: {e.details()}") from None


def check_vectors(reply, count, dimension, what):
    check(reply.nums == count and len(reply.vectors) == count,
          f"{what}: nums={reply.nums} and {len(reply.vectors)} vectors for {count} images")
    vectors = []
    for i, vector in enumerate(reply.vectors):
        v = np.array(vector.element, dtype=np.float64)
        check(len(v) == dimension,
              f"{what}: vector {i} has {len(v)} elements, but custom_operator.py declares DIMENSION = {dimension}")
        check(np.all(np.isfinite(v)), f"{what}: vector {i} has non-finite elements")
        norm = float(np.linalg.norm(v))
        check(abs(norm - 1) < 1e-4, f"{what}: vector {i} has L2 norm {norm:.6f}, expected 1 (normalised)")
        vectors.append(v)
    return vectors


def expect_invalid(stub, rpc_pb2, what, **request):
    try:
        stub.Execute(rpc_pb2.ExecuteRequest(**request), timeout=CALL_TIMEOUT_S)
    except grpc.RpcError as e:
        check(e.code() == grpc.StatusCode.INVALID_ARGUMENT,
              f"Execute({what}): {e.code().name}, expected INVALID_ARGUMENT: {e.details()}")
        print(f"Execute({what}): INVALID_ARGUMENT: {e.details()}")
        return
    raise Failure(f"Execute({what}) succeeded, expected INVALID_ARGUMENT")


def run_checks(stub, rpc_pb2, endpoint, urls, images, dimension):
    expected = manifest()
    identity = call(stub, "Identity", rpc_pb2.IdentityRequest())
    print("Identity: " + ", ".join(f"{f.name}={v!r}" for f, v in identity.ListFields()))
    for field, want, source in [("name", expected["name"], "opkit.yaml name"),
                                ("input", expected["input"], "opkit.yaml op.inputs"),
                                ("output", expected["output"], "opkit.yaml op.outputs"),
                                ("type", "encoder", "an encoder"),
                                ("endpoint", endpoint, "OP_ENDPOINT"),
                                ("dimension", str(dimension), "custom_operator.py DIMENSION")]:
        got = getattr(identity, field)
        check(got == want, f"Identity.{field} is {got!r}, expected {want!r} ({source})")
    check(identity.metricType in ("L2", "IP"), f"Identity.metricType is {identity.metricType!r}, expected L2 or IP")

    healthy = call(stub, "Healthy", rpc_pb2.HealthyRequest()).healthy
    check(healthy == "healthy", f"Healthy answered {healthy!r}, expected 'healthy'")
    print("Healthy: healthy")

    gradient, checkerboard = (base64.b64encode(image).decode() for image in images)
    reply = call(stub, "Execute", rpc_pb2.ExecuteRequest(datas=[gradient, "data:image/png;base64," + checkerboard]))
    by_data = check_vectors(reply, 2, dimension, "Execute(datas)")
    similarity = float(by_data[0] @ by_data[1])
    check(similarity < 0.9, f"Execute(datas): different images gave near-identical vectors (cosine {similarity:.3f})")
    print(f"Execute(datas): 2 vectors of {dimension} floats, L2 norm 1, cosine between the images {similarity:.3f}")

    reply = call(stub, "Execute", rpc_pb2.ExecuteRequest(urls=urls))
    by_url = check_vectors(reply, 2, dimension, "Execute(urls)")
    for i in range(2):
        check(np.allclose(by_url[i], by_data[i], atol=1e-6),
              f"Execute: image {i} gave another vector by URL than by data")
    print(f"Execute(urls): {len(urls)} vectors, equal to those from the same images as data")

    expect_invalid(stub, rpc_pb2, "bad base64", datas=["not base64!"])
    expect_invalid(stub, rpc_pb2, "file URL", urls=["file:///etc/passwd"])


def check_save_tmp_file(image, tmp):
    """utils.save_tmp_file, for models that read files, writes the bytes it was given."""
    sys.path.insert(0, ROOT)
    import utils

    utils.LOCAL_TMP_PATH = tmp
    path = utils.save_tmp_file("processor-test", file_data=base64.b64encode(image).decode())
    with open(path, "rb") as f:
        check(f.read() == image and path.endswith(".png"), f"utils.save_tmp_file wrote {path} wrongly")
    print(f"utils.save_tmp_file: wrote {os.path.basename(path)}")


def main():
    dimension = declared_dimension()
    print(f"custom_operator.py: DIMENSION = {dimension}")
    with tempfile.TemporaryDirectory(prefix="opkit-grpc-operator-") as tmp:
        stubs = os.path.join(tmp, "stubs")
        generate_stubs(stubs)
        sys.path.insert(0, stubs)
        import rpc_pb2
        import rpc_pb2_grpc

        images = test_images()
        served = os.path.join(tmp, "images")
        os.makedirs(served)
        for name, image in zip(("gradient.png", "checkerboard.png"), images, strict=True):
            with open(os.path.join(served, name), "wb") as f:
                f.write(image)
        check_save_tmp_file(images[0], tmp)

        files = FileServer(served)
        server = OperatorServer(stubs, tmp)
        try:
            with grpc.insecure_channel(server.endpoint, options=CHANNEL_OPTIONS) as channel:
                server.wait_ready(channel)
                stub = rpc_pb2_grpc.OperatorStub(channel)
                urls = [files.url + "/gradient.png", files.url + "/checkerboard.png"]
                run_checks(stub, rpc_pb2, server.endpoint, urls, images, dimension)
        except Failure:
            print("server log (last lines):\n" + server.log_tail(), end="")
            raise
        finally:
            code = server.stop()
            files.close()
        check(code == 0, f"server.py exited {code} on SIGTERM, expected a clean stop (0):\n{server.log_tail()}")


if __name__ == "__main__":
    # A SIGTERM to the test (a timeout) still runs the finally blocks that stop the server.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        main()
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS")
