"""Build the web table: web/ (TypeScript) -> stud_service/web/static/ (committed, shipped in the package).

    python scripts/build_web.py            # npm ci when needed, generate, type-check, bundle, write the stamp
    python scripts/build_web.py --check    # only say whether the committed assets are current (no Node)

Needs Node 18+ and grpcio-tools (a test dependency). The steps:
  1. ``npm ci`` in web/ when web/node_modules was not installed from the current package-lock.json;
  2. TypeScript for the API into web/src/gen/ (protoc-gen-es, run by grpc_tools' protoc);
  3. ``tsc --noEmit`` (type checking only: esbuild does not check types);
  4. esbuild bundles web/src/main.ts into app.js and web/src/app.css into app.css, minified; index.html and
     favicon.svg are copied as they are;
  5. build.json: the sha256 of every input (``input_digest``) and of every file written, so a test can tell,
     without Node, that the committed assets are those of the committed sources.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from gen_protos import INCLUDE_PATHS, PACKAGE_DIR, PROTO_ROOT  # noqa: E402

WEB = ROOT / "web"
SRC = WEB / "src"
GEN = SRC / "gen"
STATIC_SRC = WEB / "static-src"
OUT = ROOT / "stud_service" / "web" / "static"
STAMP = OUT / "build.json"
NODE_BIN = WEB / "node_modules" / ".bin"
# Which package-lock.json web/node_modules was installed from (npm ci rewrites node_modules entirely).
INSTALLED_LOCK = WEB / "node_modules" / ".installed-lock-sha256"

# Google's protos the API's generated code imports (its descriptors embed their dependencies), and the one a
# client needs to read a refusal's ErrorInfo. The well-known types come from @bufbuild/protobuf/wkt.
GOOGLE_PROTOS = (
    "google/api/annotations.proto",
    "google/api/http.proto",
    "google/api/field_behavior.proto",
    "google/api/resource.proto",
    "google/rpc/code.proto",
    "google/rpc/error_details.proto",
)
# Part of the input: the same sources with other options are another build. Minified, no source map, no
# banner with a date or a path, so a build is byte-for-byte the same on every machine.
ESBUILD_SCRIPT = ["--bundle", "--minify", "--format=esm", "--target=es2020", "--legal-comments=none",
                  "--charset=utf8"]
ESBUILD_STYLE = ["--minify", "--charset=utf8"]
OUTPUTS = ("index.html", "app.js", "app.css", "favicon.svg")
SCRIPT = Path(__file__).name


def input_files(root: Path = ROOT) -> list[Path]:
    """Every file the build reads, in a fixed order (by path relative to the repository)."""
    web = root / "web"
    files = [web / name for name in ("package.json", "package-lock.json", "tsconfig.json")]
    files.append(root / "scripts" / SCRIPT)
    for folder in (web / "src", web / "static-src", root / "proto"):
        files += (path for path in folder.rglob("*") if path.is_file())
    files += (root / "third_party" / "googleapis" / name for name in GOOGLE_PROTOS)
    return sorted(set(files), key=lambda path: path.relative_to(root).as_posix())


def input_digest(root: Path = ROOT) -> str:
    """sha256 over every input's path and content, and the bundler's options."""
    digest = hashlib.sha256()
    digest.update(json.dumps({"script": ESBUILD_SCRIPT, "style": ESBUILD_STYLE}).encode())
    for path in input_files(root):
        digest.update(f"\0{path.relative_to(root).as_posix()}\0".encode())
        digest.update(file_digest(path).encode())
    return digest.hexdigest()


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stamp_problems(root: Path = ROOT) -> list[str]:
    """Why the committed assets are not those of the committed sources; empty when they are."""
    out = root / OUT.relative_to(ROOT)
    stamp_path = out / STAMP.name
    if not stamp_path.exists():
        return [f"{stamp_path.relative_to(root)} is missing"]
    stamp = json.loads(stamp_path.read_text())
    problems = []
    if stamp.get("input_digest") != input_digest(root):
        problems.append("web/, proto/ or the build options changed since the assets were built")
    for name, expected in sorted(stamp.get("outputs", {}).items()):
        built = out / name
        if not built.exists() or file_digest(built) != expected:
            problems.append(f"{built.relative_to(root)} is not the file the build wrote")
    return problems


def _run(*command: str | Path, cwd: Path = ROOT) -> None:
    subprocess.run([str(part) for part in command], cwd=cwd, check=True)


def install() -> None:
    lock = file_digest(WEB / "package-lock.json")
    if INSTALLED_LOCK.exists() and INSTALLED_LOCK.read_text() == lock:
        return
    _run("npm", "ci", "--no-audit", "--no-fund", cwd=WEB)
    INSTALLED_LOCK.write_text(lock)


def generate() -> None:
    shutil.rmtree(GEN, ignore_errors=True)
    GEN.mkdir(parents=True)
    _run(
        sys.executable, "-m", "grpc_tools.protoc",
        *(f"-I{path}" for path in INCLUDE_PATHS),
        f"--plugin=protoc-gen-es={NODE_BIN / 'protoc-gen-es'}",
        f"--es_out={GEN}",
        "--es_opt=target=ts",
        *GOOGLE_PROTOS,
        *(f"{PACKAGE_DIR}/{path.name}" for path in sorted((PROTO_ROOT / PACKAGE_DIR).glob("*.proto"))),
    )


def bundle() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    esbuild = NODE_BIN / "esbuild"
    _run(esbuild, SRC / "main.ts", *ESBUILD_SCRIPT, f"--outfile={OUT / 'app.js'}", "--log-level=warning")
    _run(esbuild, SRC / "app.css", *ESBUILD_STYLE, f"--outfile={OUT / 'app.css'}", "--log-level=warning")
    for name in ("index.html", "favicon.svg"):
        shutil.copyfile(STATIC_SRC / name, OUT / name)
    stamp = {
        "comment": "Written by scripts/build_web.py (make web); tests/test_web_assets.py checks it.",
        "input_digest": input_digest(),
        "outputs": {name: file_digest(OUT / name) for name in OUTPUTS},
    }
    STAMP.write_text(json.dumps(stamp, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check the committed assets, build nothing")
    args = parser.parse_args(argv)
    if args.check:
        problems = stamp_problems()
        for problem in problems:
            print(f"stale: {problem}; run make web", file=sys.stderr)
        return 1 if problems else 0
    install()
    generate()
    _run(NODE_BIN / "tsc", "--noEmit", "-p", WEB)
    bundle()
    print(f"wrote {', '.join(OUTPUTS)} and build.json to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
