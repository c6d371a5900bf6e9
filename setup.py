"""Build hook: compiles the C core in csrc/ through cffi (API mode, out of line), and the game
engine's hot modules to C extensions with mypyc.

The engine's Python source stays the single source of truth: mypyc compiles the same modules, and
with ``STUD_PURE_PYTHON=1`` in the environment of the build the engine stays pure Python (no mypyc
needed, nothing compiled but the C core).  Everything else about the package lives in
pyproject.toml; setuptools reads ``cffi_modules`` and ``ext_modules`` only from here.
"""

import os

from setuptools import setup

# The engine modules on the path of every command: decide, evolve, legal actions, the rules and the
# events they build.  A compiled class checks its fields' types when it is built, so the classes
# callers build from untrusted input stay interpreted and keep reporting bad values their own way:
# commands (decide refuses them with a DomainError) and TableConfig (validate() names the field).
# The codec decodes every event a replay reads (a table's load, a takeover, an audit). views, errors
# and records are not hot.
COMPILED_ENGINE_MODULES = [
    "stud_service/engine/codec.py",
    "stud_service/engine/decide.py",
    "stud_service/engine/events.py",
    "stud_service/engine/evolve.py",
    "stud_service/engine/legal.py",
    "stud_service/engine/replay.py",
    "stud_service/engine/state.py",
    "stud_service/engine/rules/betting.py",
    "stud_service/engine/rules/bring_in.py",
    "stud_service/engine/rules/dealing.py",
    "stud_service/engine/rules/pots.py",
    "stud_service/engine/rules/rake.py",
    "stud_service/engine/rules/showdown.py",
    "stud_service/engine/rules/stopping.py",
]


def engine_extensions() -> list:
    if os.environ.get("STUD_PURE_PYTHON"):
        return []
    from mypyc.build import mypycify

    # One group named after the package: its shared library lands inside it (stud_service/engine__mypyc),
    # where an editable install finds it, rather than as a top-level module named by a hash.
    return mypycify(COMPILED_ENGINE_MODULES, opt_level="3", group_name="stud_service.engine")


setup(
    cffi_modules=["stud_service/_native_build.py:ffibuilder"],
    ext_modules=engine_extensions(),
)
