"""Regenerate the Python code for the public API from proto/stud/v1/*.proto.

    python scripts/gen_protos.py                 # rewrite stud_service/server/proto_gen
    python scripts/gen_protos.py --out DIR       # write elsewhere (the staleness test compares the two)

Needs grpcio-tools (a test dependency). protoc writes absolute imports (``from stud.v1 import table_pb2``);
they are rewritten to package-relative ones so the code lives inside stud_service without a top-level
``stud`` package.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
# Every proto the API imports is in the repository: Google's API and RPC protos and the well-known
# types they use (third_party/README.md says where each comes from).
INCLUDE_PATHS = (PROTO_ROOT, ROOT / "third_party" / "googleapis", ROOT / "third_party" / "protobuf")
DEFAULT_OUT = ROOT / "stud_service" / "server" / "proto_gen"
PACKAGE_DIR = "stud/v1"

_ABSOLUTE_IMPORT = re.compile(r"^from stud\.v1 import (\w+)", re.MULTILINE)


def proto_files() -> list[Path]:
    return sorted((PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))


def generate(out_dir: Path) -> list[Path]:
    """Write the generated modules flat into out_dir; return the files written."""
    from grpc_tools import protoc

    work = out_dir / "_protoc"
    work.mkdir(parents=True, exist_ok=True)
    args = [
        "protoc",
        *(f"-I{path}" for path in INCLUDE_PATHS),
        f"--python_out={work}",
        f"--pyi_out={work}",
        f"--grpc_python_out={work}",
        *(str(path) for path in proto_files()),
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed")
    written = []
    for produced in sorted((work / PACKAGE_DIR).iterdir()):
        text = _ABSOLUTE_IMPORT.sub(r"from . import \1", produced.read_text())
        target = out_dir / produced.name
        target.write_text(text)
        written.append(target)
    init = out_dir / "__init__.py"
    init.write_text('"""Generated from proto/stud/v1 by scripts/gen_protos.py; do not edit."""\n')
    written.append(init)
    _remove_tree(work)
    return written


def _remove_tree(path: Path) -> None:
    for child in sorted(path.rglob("*"), reverse=True):
        child.rmdir() if child.is_dir() else child.unlink()
    path.rmdir()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in generate(args.out):
        print(path.relative_to(args.out.parent) if args.out == DEFAULT_OUT else path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
