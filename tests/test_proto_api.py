"""The public API's protos: they pass `buf lint`, compile with this repository alone, are served by
reflection (v1 and v1alpha), and the committed Python code matches them."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from stud_service.server.proto_gen import errors_pb2

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "stud_service" / "server" / "proto_gen"
BUF_PACKAGE = "@bufbuild/buf@1.75.0"

# Lines that record which protoc/grpcio-tools produced the code rather than what the protos say.
_TOOL_VERSION_LINES = re.compile(
    r"^# Protobuf Python Version: .*$"
    r"|^_runtime_version\.ValidateProtobufRuntimeVersion\([^)]*\)"
    r"|^GRPC_GENERATED_VERSION = .*$",
    re.MULTILINE,
)


def _normalised(text: str) -> str:
    return _TOOL_VERSION_LINES.sub("<tool version>", text)


@pytest.mark.skipif(shutil.which("npx") is None, reason="npm/npx is not installed")
def test_protos_pass_buf_lint() -> None:
    """AIP-style API: `buf lint` with the STANDARD rules (see buf.yaml for the two justified exceptions)."""
    result = subprocess.run(
        ["npx", "--yes", BUF_PACKAGE, "lint"],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_committed_generated_code_is_current(tmp_path: Path) -> None:
    """Regenerating from proto/ gives the committed proto_gen (else run scripts/gen_protos.py)."""
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_protos.py"), "--out", str(tmp_path)],
        check=True, capture_output=True, timeout=120,
    )
    fresh = {path.name: path for path in tmp_path.iterdir() if path.is_file()}
    committed = {path.name: path for path in GENERATED.iterdir() if path.is_file()}
    assert sorted(fresh) == sorted(committed)
    for name, path in fresh.items():
        assert _normalised(path.read_text()) == _normalised(committed[name].read_text()), (
            f"{name} is stale: run scripts/gen_protos.py"
        )


def test_generated_code_imports_inside_the_package() -> None:
    """The generated modules use package-relative imports, so no top-level `stud` package is needed."""
    from stud_service.server.proto_gen import table_pb2, table_service_pb2, table_service_pb2_grpc

    assert table_service_pb2.DESCRIPTOR.package == "stud.v1"
    assert table_pb2.Variant.Name(0) == "VARIANT_UNSPECIFIED"
    assert hasattr(table_service_pb2_grpc, "TableServiceServicer")


def test_every_proto_compiles_with_only_this_repository(tmp_path: Path) -> None:
    """A client needs nothing but proto/ and third_party/: protoc is given no include path of its own
    (``protoc.main`` adds none, unlike ``python -m grpc_tools.protoc``)."""
    includes = [ROOT / "proto", *sorted(path for path in (ROOT / "third_party").iterdir() if path.is_dir())]
    run_protoc = "import sys; from grpc_tools import protoc; sys.exit(protoc.main(sys.argv[1:]))"
    protos = sorted((ROOT / "proto").rglob("*.proto"))
    out = tmp_path / "api.binpb"
    result = subprocess.run(
        [sys.executable, "-c", run_protoc, "protoc", *(f"-I{path}" for path in includes), "--include_imports",
         f"--descriptor_set_out={out}", f"--python_out={tmp_path}", *(str(path) for path in protos)],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    compiled = {file.name for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file}
    assert {str(path.relative_to(ROOT / "proto")) for path in protos} <= compiled
    # Everything they import, and what a client needs to read the error trailer, came from third_party/.
    assert {"google/api/annotations.proto", "google/protobuf/timestamp.proto", "google/rpc/code.proto"} <= (
        compiled
    )
    for name in ("google/rpc/status.proto", "google/rpc/error_details.proto"):
        assert (ROOT / "third_party" / "googleapis" / name).is_file()


def test_the_protos_keep_no_stale_promises() -> None:
    """The proto comments are the client's documentation: no promised service, no hand-kept reason list."""
    text = "\n".join(path.read_text() for path in (ROOT / "proto").rglob("*.proto"))
    assert "Room is left" not in text
    assert "SHUTTING_DOWN" not in text


_SERVICE, _METHOD = 6, 2  # field numbers in FileDescriptorProto / ServiceDescriptorProto (source paths)


def _method_comments(tmp_path: Path) -> dict[str, str]:
    """``Service.Method`` -> the method's leading comment, for every service in proto/."""
    protos = sorted((ROOT / "proto").rglob("*_service.proto"))
    out = tmp_path / "services.binpb"
    includes = [ROOT / "proto", ROOT / "third_party" / "googleapis", ROOT / "third_party" / "protobuf"]
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", *(f"-I{path}" for path in includes),
         "--include_source_info", f"--descriptor_set_out={out}", *(str(path) for path in protos)],
        check=True, capture_output=True, timeout=120,
    )
    comments = {}
    for file in descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file:
        locations = file.source_code_info.location
        found = {tuple(location.path): location.leading_comments for location in locations}
        for s, service in enumerate(file.service):
            for m, method in enumerate(service.method):
                comments[f"{service.name}.{method.name}"] = found.get((_SERVICE, s, _METHOD, m), "").strip()
    assert len(comments) > 20
    return comments


def test_every_method_has_a_comment_of_its_own(tmp_path: Path) -> None:
    """The proto comments are the client's documentation: each rpc has its own, above it (GetTableView's once
    sat inside JoinWaitingList's, and the rpc had none)."""
    comments = _method_comments(tmp_path)
    assert [name for name, comment in comments.items() if not comment] == []
    assert comments["TableService.GetTableView"].startswith("The table as the caller may see it")
    assert comments["TableService.JoinWaitingList"].startswith("Joins a full table's waiting list")


def test_the_table_service_comments_name_the_role_and_turn_reasons() -> None:
    text = (ROOT / "proto" / "stud" / "v1" / "table_service.proto").read_text()
    for reason in ("OPERATOR_ONLY", "NOT_YOUR_SEAT", "NOT_SEATED", "AUDITOR_READ_ONLY", "NOT_YOUR_TURN",
                   "STALE_TURN"):
        assert reason in text, reason
        assert reason in set(errors_pb2.ErrorReason.keys())


def _reflection_v1() -> tuple[type[Message], type[Message]]:
    """The grpc.reflection.v1 messages, as a v1 client has them."""
    from stud_service.server.grpc import reflection

    pool = descriptor_pool.Default()
    assert reflection.V1_SERVICE_NAME == "grpc.reflection.v1.ServerReflection"
    return tuple(  # type: ignore[return-value]
        message_factory.GetMessageClass(pool.FindMessageTypeByName(f"grpc.reflection.v1.{name}"))
        for name in ("ServerReflectionRequest", "ServerReflectionResponse")
    )


async def test_reflection_v1_lists_the_services_and_serves_their_files(grpc_service) -> None:
    """grpcurl, Postman and grpc-js tools ask grpc.reflection.v1 first; v1alpha is still served."""
    request_type, response_type = _reflection_v1()
    info = grpc_service.channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=request_type.SerializeToString,
        response_deserializer=response_type.FromString,
    )

    async def ask(**request: Any) -> Any:
        replies = [reply async for reply in info(iter([request_type(**request)]))]
        assert len(replies) == 1 and not replies[0].HasField("error_response"), replies
        return replies[0]

    listed = {service.name for service in (await ask(list_services="")).list_services_response.service}
    assert {"stud.v1.TableService", "stud.v1.AuditService", "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"} <= listed

    # A client rebuilds the API from the server alone: the service's file and everything it imports.
    files: dict[str, descriptor_pb2.FileDescriptorProto] = {}
    reply = await ask(file_containing_symbol="stud.v1.TableService")
    while True:
        for raw in reply.file_descriptor_response.file_descriptor_proto:
            file = descriptor_pb2.FileDescriptorProto.FromString(raw)
            files[file.name] = file
        missing = sorted({dep for file in files.values() for dep in file.dependency} - set(files))
        if not missing:
            break
        reply = await ask(file_by_filename=missing[0])
    pool = descriptor_pool.DescriptorPool()
    while files:  # each file after the files it imports
        name = next(name for name, file in files.items() if not set(file.dependency) & set(files))
        pool.Add(files.pop(name))
    methods = {method.name for method in pool.FindServiceByName("stud.v1.TableService").methods}
    assert {"CreateTable", "Act", "WatchTable"} <= methods

    reply = await ask(file_containing_symbol="stud.v1.ErrorReason")
    errors, *_imports = map(descriptor_pb2.FileDescriptorProto.FromString,
                            reply.file_descriptor_response.file_descriptor_proto)
    assert errors.name == "stud/v1/errors.proto"
    assert "google/rpc/code.proto" in errors.dependency
    assert [value.name for value in errors.enum_type[0].value] == list(errors_pb2.ErrorReason.keys())
    itself = await ask(file_containing_symbol="grpc.reflection.v1.ServerReflection")
    assert descriptor_pb2.FileDescriptorProto.FromString(
        itself.file_descriptor_response.file_descriptor_proto[0]
    ).package == "grpc.reflection.v1"
