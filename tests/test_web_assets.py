"""The web table's committed assets (stud_service/web/static/) are those its committed sources build.

The build (scripts/build_web.py, ``make web``) needs Node; this check does not: it recomputes the digest of
every input the build reads and compares it, and every output's digest, with the stamp the build wrote.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "stud_service" / "web" / "static"


def _build_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_web", ROOT / "scripts" / "build_web.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_web = _build_script()


def test_committed_assets_are_built_from_the_committed_sources() -> None:
    problems = build_web.stamp_problems()
    assert not problems, "the web table's assets are stale: run make web (" + "; ".join(problems) + ")"


def test_the_stamp_notices_a_changed_source(tmp_path: Path) -> None:
    """A copy of the sources with one line of TypeScript changed no longer matches the stamp."""
    copy = tmp_path / "repo"
    parts = ("web/src", "web/static-src", "proto", "third_party/googleapis", "scripts",
             "stud_service/web/static")
    for part in parts:
        shutil.copytree(ROOT / part, copy / part)
    for name in ("package.json", "package-lock.json", "tsconfig.json"):
        shutil.copyfile(ROOT / "web" / name, copy / "web" / name)
    assert build_web.stamp_problems(copy) == []
    main = copy / "web" / "src" / "main.ts"
    main.write_text(main.read_text() + "\n// changed\n")
    assert build_web.stamp_problems(copy) == [
        "web/, proto/ or the build options changed since the assets were built"
    ]
    (copy / "web" / "src" / "main.ts").write_text((ROOT / "web" / "src" / "main.ts").read_text())
    (copy / "stud_service" / "web" / "static" / "app.js").write_text("/* edited by hand */")
    assert build_web.stamp_problems(copy) == [
        "stud_service/web/static/app.js is not the file the build wrote"
    ]


def test_index_references_only_files_that_exist() -> None:
    html = (STATIC / "index.html").read_text()
    referenced = re.findall(r'(?:src|href)="([^"#:]+)"', html)
    assert {"app.js", "app.css"} <= set(referenced)
    missing = [name for name in referenced if not (STATIC / name).is_file()]
    assert not missing, f"index.html references {missing}, which are not in {STATIC}: run make web"


def test_the_package_ships_the_assets(monkeypatch: pytest.MonkeyPatch) -> None:
    """pip install needs no Node: setuptools' build_py copies every built asset into the package."""
    from setuptools.config.pyprojecttoml import apply_configuration
    from setuptools.dist import Distribution

    monkeypatch.chdir(ROOT)
    distribution = Distribution({"script_name": "setup.py"})
    apply_configuration(distribution, ROOT / "pyproject.toml")
    build_py = distribution.get_command_obj("build_py")
    build_py.ensure_finalized()
    shipped = {f"{package}/{name}" for package, _src, _build, names in build_py.data_files for name in names}
    outputs = json.loads((STATIC / "build.json").read_text())["outputs"]
    assets = {f"stud_service.web/static/{name}" for name in outputs}
    assert assets <= shipped, f"not shipped with the package: {sorted(assets - shipped)}"
