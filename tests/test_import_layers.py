"""The package's imports: no cycle anywhere in ``stud_service/``, and the layers DESIGN.md draws.

Imports are read from the sources with ``ast``, nothing is imported. What counts:

- an import at module level, and one inside a function too: it runs when the function first does, and a
  cycle it closes still is one (it only fails later, and hides the dependency it makes);
- not an import under ``if TYPE_CHECKING:``, which never runs — for cycles. The layer rules count it: a
  module that names another's types for the checker still knows that module;
- importing ``a.b.c`` runs the ``__init__`` of ``a.b`` too (unless the importer is inside ``a.b``), and a
  package's ``__init__`` imports what it re-exports: ``from stud_service.store.migrate import ...`` depends
  on everything ``stud_service/store/__init__.py`` imports.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "stud_service"
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    type_only: bool  # under ``if TYPE_CHECKING:``


def module_files(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` (a directory under ``root``) by dotted name; a package by its own name."""
    modules: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_statements(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement in ``tree`` (functions and classes included), and whether it is type-only."""
    pending: list[tuple[ast.AST, bool]] = [(tree, False)]
    while pending:
        node, type_only = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, type_only
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            pending.extend((child, True) for child in node.body)
            pending.extend((child, type_only) for child in node.orelse)
            continue
        pending.extend((child, type_only) for child in ast.iter_child_nodes(node))


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _named_modules(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool) -> list[str]:
    """The dotted names a statement imports: ``from a import b`` names ``a.b`` (a module or not)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = _absolute(node, importer, is_package)
    return [f"{base}.{alias.name}" for alias in node.names]


def _modules_run(name: str, importer: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules that importing ``name`` from ``importer`` runs: the longest known prefix of
    the name, and the packages above it that the importer is not inside (their ``__init__`` runs first)."""
    parts = name.split(".")
    prefixes = [".".join(parts[:length]) for length in range(len(parts), 0, -1)]
    known = [prefix for prefix in prefixes if prefix in modules]
    run = set(known[:1])
    run.update(package for package in known[1:] if not (importer + ".").startswith(package + "."))
    run.discard(importer)
    return run


def read_imports(root: Path, package: str) -> tuple[dict[str, Path], list[Import]]:
    modules = module_files(root, package)
    imports: list[Import] = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node, type_only in _import_statements(tree):
            for name in _named_modules(node, importer, is_package):
                if name == package or name.startswith(package + "."):
                    imports.extend(
                        Import(importer, imported, node.lineno, type_only)
                        for imported in sorted(_modules_run(name, importer, modules))
                    )
    return modules, imports


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def _one_cycle(component: list[str], edges: dict[tuple[str, str], Import]) -> list[Import]:
    """A shortest cycle through the component's first module, as the imports that make it."""
    start = component[0]
    members = set(component)
    came_by: dict[str, Import] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for (importer, imported), edge in sorted(edges.items()):
            if importer != module or imported not in members:
                continue
            if imported == start:
                path = [edge]
                while path[0].importer != start:
                    path.insert(0, came_by[path[0].importer])
                return path
            if imported not in came_by:
                came_by[imported] = edge
                queue.append(imported)
    raise AssertionError(f"no cycle through {start}")  # a component always has one


def import_cycles(imports: Iterable[Import]) -> list[list[Import]]:
    """One cycle of run-time imports for each group of modules that import each other."""
    edges: dict[tuple[str, str], Import] = {}
    for edge in imports:
        if not edge.type_only:
            edges.setdefault((edge.importer, edge.imported), edge)
    graph: dict[str, set[str]] = {}
    for importer, imported in edges:
        graph.setdefault(importer, set()).add(imported)
    return [_one_cycle(component, edges) for component in _strongly_connected(graph)]


def describe(cycle: list[Import]) -> str:
    """``a (line 3) -> b (line 7) -> a``: each module with the line of its import of the next."""
    return " -> ".join([*(f"{edge.importer} (line {edge.line})" for edge in cycle), cycle[0].importer])


MODULES, IMPORTS = read_imports(ROOT, PACKAGE)


def _unit(module: str) -> str:
    """The top-level unit a module belongs to: ``stud_service.store.eventlog`` -> ``store``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _leaving(unit: str) -> list[Import]:
    """Imports from ``unit`` into the rest of the package."""
    return [
        edge for edge in IMPORTS
        if _unit(edge.importer) == unit and _unit(edge.imported) not in ("", unit)
    ]


def _listed(edges: Iterable[Import]) -> str:
    return "\n".join(f"  {edge.importer} (line {edge.line}) imports {edge.imported}" for edge in edges)


# -- cycles ------------------------------------------------------------------------------------


def test_no_import_cycle_in_the_package() -> None:
    cycles = import_cycles(IMPORTS)
    assert not cycles, "import cycles:\n" + "\n".join(f"  {describe(cycle)}" for cycle in cycles)


def test_the_reader_finds_a_cycle_closed_inside_a_function_and_through_a_package(tmp_path: Path) -> None:
    """The reader itself: a cycle closed by a function-level import through a package's ``__init__`` is
    found; one closed only under TYPE_CHECKING is not."""
    sources = {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "from pkg.low.inner import thing\n",
        "pkg/low/inner.py": "from pkg.high import helper\nthing = 1\n",
        "pkg/high.py": "def helper():\n    from pkg.low.other import x\n    return x\n",
        "pkg/low/other.py": "x = 2\n",
        "pkg/typed_a.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg import typed_b\n",
        "pkg/typed_b.py": "from pkg import typed_a\n",
    }
    for name, text in sources.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    _, imports = read_imports(tmp_path, "pkg")
    assert [describe(cycle) for cycle in import_cycles(imports)] == [
        "pkg.high (line 2) -> pkg.low (line 1) -> pkg.low.inner (line 1) -> pkg.high"
    ]


# -- the layers of DESIGN.md ---------------------------------------------------------------------

# The engine is pure: cards, the C core and plain data (currency: ISO 4217 minor units) only.
ENGINE_MAY_IMPORT = {"cards", "native", "currency"}
# The store knows events as JSON: of the rest of the package only the retry pacing it shares.
STORE_MAY_IMPORT = {"backoff"}
# ... except store.tables, the one module where the log meets the engine (its docstring says so).
STORE_MODULES_MAY_IMPORT = {"stud_service.store.tables": {"engine"}}
# Above the server only the commands (and the cli that runs them), and the bots: clients of the
# service that speak its API through the server's generated messages, error details and web codec.
MAY_IMPORT_SERVER = {"commands", "cli", "bots"}
TOP = {"commands", "cli"}
# Tournaments are a pure domain beside the engine (DESIGN.md "Tournaments"): they drive its tables and draw
# with the shuffle's stream, and only the layers above them (audit, server, commands, cli, bots) know them.
TOURNAMENTS_MAY_IMPORT = {"engine", "cards", "native", "currency", "shuffle", "deck_proof"}
MAY_IMPORT_TOURNAMENTS = {"audit", "server", "commands", "cli", "bots"}


def test_engine_imports_only_cards_native_and_plain_data() -> None:
    wrong = [edge for edge in _leaving("engine") if _unit(edge.imported) not in ENGINE_MAY_IMPORT]
    assert not wrong, "the engine imports beyond cards, native and currency:\n" + _listed(wrong)


def test_store_knows_nothing_of_the_engine_or_the_server() -> None:
    wrong = [
        edge for edge in _leaving("store")
        if _unit(edge.imported) not in STORE_MAY_IMPORT | STORE_MODULES_MAY_IMPORT.get(edge.importer, set())
    ]
    assert not wrong, "the store imports from above it:\n" + _listed(wrong)


def test_server_is_imported_only_by_the_commands_and_the_bots() -> None:
    wrong = [
        edge for edge in IMPORTS
        if _unit(edge.imported) == "server" and _unit(edge.importer) not in MAY_IMPORT_SERVER | {"server"}
    ]
    assert not wrong, "below the server, imports of it:\n" + _listed(wrong)


def test_tournaments_import_only_the_engine_and_the_shuffle() -> None:
    wrong = [edge for edge in _leaving("tournaments") if _unit(edge.imported) not in TOURNAMENTS_MAY_IMPORT]
    assert not wrong, "the tournaments import beyond the engine and the shuffle:\n" + _listed(wrong)


def test_nothing_below_the_tournaments_imports_them() -> None:
    wrong = [
        edge for edge in IMPORTS
        if _unit(edge.imported) == "tournaments"
        and _unit(edge.importer) not in MAY_IMPORT_TOURNAMENTS | {"tournaments"}
    ]
    assert not wrong, "below the tournaments, imports of them:\n" + _listed(wrong)


def test_nothing_imports_the_commands_or_the_cli() -> None:
    wrong = [edge for edge in IMPORTS if _unit(edge.imported) in TOP and _unit(edge.importer) not in TOP]
    assert not wrong, "imports of the commands or the cli from below:\n" + _listed(wrong)


def test_the_store_writer_and_hub_depend_on_shared_pieces_not_on_the_store() -> None:
    """The store owns its writer and notification hub; they know neither it nor each other."""
    owners = {"stud_service.store", "stud_service.store.eventlog"}
    machinery = {"stud_service.store._writer", "stud_service.store.subscribe"}
    wrong = [
        edge for edge in IMPORTS
        if edge.importer in machinery and (edge.imported in owners or edge.imported in machinery)
    ]
    assert not wrong, "the writer or the hub depends on the store (or on each other):\n" + _listed(wrong)


# -- the server's folders (stud_service/server/__init__.py) ---------------------------------------

SERVER = "stud_service.server"
PORTS = {"grpc", "web"}
# The tables raise the API's refusals, check request ids and keep each table's shared reply parts: of the
# API they import these only (``stud_service.server.api`` itself: the package's __init__, which they run).
TABLES_MAY_IMPORT_OF_API = {f"{SERVER}.api", f"{SERVER}.api.errors", f"{SERVER}.api.request_ids",
                            f"{SERVER}.api.replies"}
# The size a module of the server may reach (the generated protobuf code excepted): past it, split it.
MAX_SERVER_MODULE_LINES = 500


def _folder(module: str) -> str:
    """The server folder (or top-level module) a module is in: ``stud_service.server.api.call`` -> ``api``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == SERVER.split(".") else ""


def test_the_server_folders_import_inwards() -> None:
    """The ports hand calls to the services, the services use the tables, the host wires them all: the
    services and the tables import no port and not the host; the ports import no table; the tables import
    only the API's refusals, request ids and reply cache; the latency meter imports none of them."""
    def outwards(edge: Import) -> bool:
        source, target = _folder(edge.importer), _folder(edge.imported)
        return (
            (source in {"api", "tables"} and target in PORTS | {"host"})
            or (source in PORTS and target in {"tables", "host"})
            or (source == "tables" and target == "api" and edge.imported not in TABLES_MAY_IMPORT_OF_API)
            or (source == "latency" and target in PORTS | {"api", "tables", "tournaments", "host"})
        )

    wrong = [edge for edge in IMPORTS if outwards(edge)]
    assert not wrong, "server folders importing outwards:\n" + _listed(wrong)


# The tournaments (stud_service/server/tournaments) sit beside the tables and build on their generic pieces;
# of the API they import the refusals and request ids, as the tables do. The tables hold the tournaments'
# runtime (``TableRuntime.tournaments``) and drive its tables with it (``tables.tournament_tables``), and know
# nothing else of them.
TOURNAMENTS_MAY_IMPORT_OF_TABLES = {
    f"{SERVER}.tables", f"{SERVER}.tables.followed", f"{SERVER}.tables.fanout", f"{SERVER}.tables.tasks",
    f"{SERVER}.tables.live",
}
TABLES_MAY_IMPORT_OF_TOURNAMENTS = {f"{SERVER}.tournaments", f"{SERVER}.tournaments.runtime"}
TABLES_IMPORTING_TOURNAMENTS = {f"{SERVER}.tables.runtime", f"{SERVER}.tables.tournament_tables"}


def test_the_server_tournaments_use_the_tables_generic_pieces_and_the_tables_only_their_runtime() -> None:
    def wrong_way(edge: Import) -> bool:
        source, target = _folder(edge.importer), _folder(edge.imported)
        return (
            (source == "tournaments" and target in PORTS | {"host"})
            or (source in PORTS and target == "tournaments")
            or (source == "tournaments" and target == "api" and edge.imported not in TABLES_MAY_IMPORT_OF_API)
            or (source == "tournaments" and target == "tables"
                and edge.imported not in TOURNAMENTS_MAY_IMPORT_OF_TABLES)
            or (source == "tables" and target == "tournaments"
                and (edge.importer not in TABLES_IMPORTING_TOURNAMENTS
                     or edge.imported not in TABLES_MAY_IMPORT_OF_TOURNAMENTS))
        )

    wrong = [edge for edge in IMPORTS if wrong_way(edge)]
    assert not wrong, "the server's tournaments and tables importing beyond their pieces:\n" + _listed(wrong)
    assert any(_folder(edge.importer) == "tournaments" for edge in IMPORTS)  # the reader found them


def test_no_module_of_the_server_is_over_500_lines() -> None:
    sizes = {
        module: len(path.read_text(encoding="utf-8").splitlines())
        for module, path in MODULES.items()
        if _unit(module) == "server" and _folder(module) != "proto_gen"
    }
    assert len(sizes) > 40  # the reader found the server's modules
    long = {module: lines for module, lines in sizes.items() if lines > MAX_SERVER_MODULE_LINES}
    assert not long, f"server modules over {MAX_SERVER_MODULE_LINES} lines (split them by job): {long}"
