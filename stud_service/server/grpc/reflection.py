"""Server reflection under both names clients ask for: ``grpc.reflection.v1`` and ``v1alpha``.

grpcio-reflection implements only v1alpha, which newer clients (grpcurl, Postman, grpc-js tools)
no longer try first. v1 is the same protocol moved to a new package: every message, field and
number is unchanged, so the v1alpha servicer answers v1 calls byte for byte. The v1 file
descriptor is derived from v1alpha's (package and file name changed) and added to the default
pool, so reflection describes its own v1 service as well.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from stud_service.server.grpc.handlers import MalformedCounter, add_generated, register

V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
V1_PACKAGE = "grpc.reflection.v1"
V1_FILE = "grpc/reflection/v1/reflection.proto"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"


def v1_file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """``grpc/reflection/v1/reflection.proto`` as v1alpha's file under the v1 package."""
    alpha_prefix, v1_prefix = f".{reflection_pb2.DESCRIPTOR.package}.", f".{V1_PACKAGE}."
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    file.name, file.package = V1_FILE, V1_PACKAGE
    file.ClearField("options")  # v1alpha's are its own: deprecated, its Java and Go packages

    def renamed(type_name: str) -> str:
        return v1_prefix + type_name.removeprefix(alpha_prefix)

    for message in file.message_type:
        for message_field in message.field:
            if message_field.type_name.startswith(alpha_prefix):  # scalars have none: leave it unset
                message_field.type_name = renamed(message_field.type_name)
    for service in file.service:
        for method in service.method:
            method.input_type, method.output_type = renamed(method.input_type), renamed(method.output_type)
    return file


def _add_v1_to_default_pool() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE)
    except KeyError:
        pool.AddSerializedFile(v1_file_descriptor().SerializeToString())


_add_v1_to_default_pool()


def enable_reflection(service_names: Iterable[str], server: grpc.aio.Server,
                      malformed_requests: MalformedCounter | None = None) -> None:
    """Serve reflection of ``service_names`` (and of reflection itself) under v1alpha and v1, requests
    that do not parse refused and counted as every service's are (server.grpc.handlers)."""
    servicer = reflection.aio.ReflectionServicer((*service_names, V1ALPHA_SERVICE_NAME, V1_SERVICE_NAME))
    add_generated(server, reflection_pb2_grpc.add_ServerReflectionServicer_to_server, servicer,
                  malformed_requests)
    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    register(server, V1_SERVICE_NAME, {"ServerReflectionInfo": v1}, malformed_requests)
