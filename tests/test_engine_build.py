"""The engine's build (setup.py): the modules mypyc compiles are all compiled or all plain Python, and a
compiled module is never older than its source (an edit not rebuilt would run the old code)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_engine_modules() -> list[str]:
    """setup.py's COMPILED_ENGINE_MODULES, as module names."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "COMPILED_ENGINE_MODULES" for t in node.targets):
            paths = ast.literal_eval(node.value)
            return [path.removesuffix(".py").replace("/", ".") for path in paths]
    raise AssertionError("setup.py lists no COMPILED_ENGINE_MODULES")


def test_the_compiled_modules_are_the_hot_engine_modules() -> None:
    names = compiled_engine_modules()
    assert {"stud_service.engine.decide", "stud_service.engine.evolve", "stud_service.engine.legal",
            "stud_service.engine.state", "stud_service.engine.events",
            "stud_service.engine.codec"} <= set(names)
    # Built from untrusted input and refused by the engine's own checks: they stay interpreted.
    assert "stud_service.engine.commands" not in names and "stud_service.engine.config" not in names


def test_all_or_none_compiled_and_none_older_than_its_source() -> None:
    files = {name: Path(importlib.import_module(name).__file__ or "") for name in compiled_engine_modules()}
    compiled = {name for name, path in files.items() if path.suffix != ".py"}
    assert compiled in (set(), set(files)), f"only some engine modules are compiled: {sorted(compiled)}"
    if not compiled:
        return
    # The compiled code of every module lives in the group's library (setup.py's group_name); each
    # module's own extension is a shim that a rebuild leaves untouched when only code changed.
    spec = importlib.util.find_spec("stud_service.engine__mypyc")
    assert spec is not None and spec.origin is not None
    library = Path(spec.origin)
    for name in compiled:
        source = ROOT / (name.replace(".", "/") + ".py")
        assert library.stat().st_mtime >= source.stat().st_mtime, (
            f"{library.name} is older than {source.name}: rebuild (pip install -e . or make test)")
