"""The {{name}} operator's gRPC server: serves CustomOperator (custom_operator.py)
as the Operator service of rpc/rpc.proto, which is what Phantoscope calls."""
import logging
import os
import signal
import sys
from concurrent import futures

import grpc

# The stubs are generated into rpc/ (make protoc, or the Dockerfile). Appended, not
# prepended, so stubs on PYTHONPATH win: `opkit test` passes freshly generated ones.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rpc"))
import rpc_pb2  # noqa: E402
import rpc_pb2_grpc  # noqa: E402

from custom_operator import CustomOperator  # noqa: E402
from utils import BadInput  # noqa: E402

# host:port. The port is served; the whole endpoint is what Identity reports, so
# it must be an address Phantoscope can reach (a LAN address, not 127.0.0.1).
ENDPOINT = os.getenv("OP_ENDPOINT", "127.0.0.1:80")
# The interface to listen on: all by default, as inside a container.
BIND_HOST = os.getenv("OP_BIND_HOST", "[::]")
# Images travel inline as base64, so messages are large (Phantoscope allows 100 MiB).
MAX_MESSAGE_BYTES = 100 * 1024 * 1024


class OperatorServicer(rpc_pb2_grpc.OperatorServicer):
    def __init__(self):
        self.operator = CustomOperator()

    def Execute(self, request, context):
        try:
            vectors = self.operator.run(list(request.datas), list(request.urls))
        except BadInput as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        logging.info("Execute: %d vectors", len(vectors))
        return rpc_pb2.ExecuteReply(nums=len(vectors),
                                    vectors=[rpc_pb2.Vector(element=v) for v in vectors],
                                    metadata=[])

    def Healthy(self, request, context):
        return rpc_pb2.HealthyReply(healthy="healthy")

    def Identity(self, request, context):
        operator = self.operator
        return rpc_pb2.IdentityReply(name=operator.name,
                                     endpoint=ENDPOINT,
                                     type=operator.type,
                                     input=operator.input,
                                     output=operator.output,
                                     dimension=operator.dimension,
                                     metricType=operator.metric_type)


def serve():
    options = [("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
               ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
               # A second server on a taken port fails, instead of silently sharing it.
               ("grpc.so_reuseport", 0)]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=10), options=options)
    rpc_pb2_grpc.add_OperatorServicer_to_server(OperatorServicer(), server)
    address = "%s:%s" % (BIND_HOST, ENDPOINT.rsplit(":", 1)[-1])
    server.add_insecure_port(address)  # raises RuntimeError when the port is taken
    server.start()
    # docker stop sends SIGTERM, which Python ignores when it runs as PID 1.
    signal.signal(signal.SIGTERM, lambda *_: server.stop(grace=2))
    logging.info("serving on %s, endpoint %s", address, ENDPOINT)
    server.wait_for_termination()


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    serve()
