"""Write the client guide's table of error reasons from ``stud.v1.ErrorReason`` (proto/stud/v1/errors.proto).

    python scripts/gen_error_reasons.py           # rewrite the table in docs/clients.md
    python scripts/gen_error_reasons.py --check   # exit 1 if docs/clients.md's table is not the generated one

The enum is the one list of reasons: each value's name is the ErrorInfo reason, its ``grpc_code`` option
the status code, and its comment says when it is sent and (after "Metadata:") its ErrorInfo metadata.
Needs grpcio-tools (a test dependency), for the comments: protoc keeps them with --include_source_info.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from google.protobuf import descriptor_pb2

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from gen_protos import INCLUDE_PATHS, PROTO_ROOT  # noqa: E402

ERRORS_PROTO = PROTO_ROOT / "stud" / "v1" / "errors.proto"
GUIDE = ROOT / "docs" / "clients.md"
BEGIN = "<!-- error reasons: generated from proto/stud/v1/errors.proto by scripts/gen_error_reasons.py -->"
END = "<!-- end of error reasons -->"
_ENUM_TYPE, _ENUM_VALUE = 5, 2  # field numbers in FileDescriptorProto / EnumDescriptorProto (source paths)


def reason_comments() -> dict[str, str]:
    """Each ErrorReason value's leading comment, as one line."""
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "errors.binpb"
        subprocess.run(
            [sys.executable, "-m", "grpc_tools.protoc", *(f"-I{path}" for path in INCLUDE_PATHS),
             "--include_source_info", f"--descriptor_set_out={out}", str(ERRORS_PROTO)],
            check=True, capture_output=True,
        )
        file = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]
    enum_index = next(i for i, enum in enumerate(file.enum_type) if enum.name == "ErrorReason")
    values = file.enum_type[enum_index].value
    comments = {}
    for location in file.source_code_info.location:
        path = list(location.path)
        if path[:3] == [_ENUM_TYPE, enum_index, _ENUM_VALUE] and len(path) == 4:
            comments[values[path[3]].name] = " ".join(location.leading_comments.split())
    return {value.name: comments.get(value.name, "") for value in values}


def table() -> str:
    """The markdown table: reason, code, when, metadata, in the enum's order (UNSPECIFIED left out)."""
    from stud_service.server.api.reasons import REASONS, code_of

    lines = ["| reason | code | when | ErrorInfo metadata |", "|---|---|---|---|"]
    for name, comment in reason_comments().items():
        if name not in REASONS:
            continue  # ERROR_REASON_UNSPECIFIED: never sent
        when, _, metadata = comment.partition("Metadata:")
        lines.append(f"| {name} | {code_of(name).name} | {when.strip()} | {metadata.strip()} |")
    return "\n".join(lines)


def with_table(guide: str) -> str:
    before, begin, rest = guide.partition(BEGIN)
    _old, end, after = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"docs/clients.md has no {BEGIN!r} ... {END!r} block")
    return f"{before}{BEGIN}\n{table()}\n{END}{after}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check docs/clients.md")
    args = parser.parse_args(argv)
    current = GUIDE.read_text()
    fresh = with_table(current)
    if args.check:
        if fresh != current:
            print("docs/clients.md: error reasons stale, run scripts/gen_error_reasons.py", file=sys.stderr)
            return 1
        return 0
    GUIDE.write_text(fresh)
    return 0


if __name__ == "__main__":
    sys.exit(main())
