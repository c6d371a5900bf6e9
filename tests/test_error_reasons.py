"""One list of error reasons: ``stud.v1.ErrorReason`` (proto/stud/v1/errors.proto).

The code is read, not a copy of the list: every engine, ledger, audit and tournament error class that is
built somewhere, and every ``RequestError(...)``, ``AuthError(...)`` and ``rich_status(...)`` call, names a
reason the enum has
and the status code the enum gives it; every reason in the enum is one of those; and the client guide's table
(docs/clients.md) is the one generated from the enum.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from stud_service.audit.errors import AuditError
from stud_service.engine import errors as engine_errors
from stud_service.engine.errors import DomainError
from stud_service.ledger.errors import LedgerError
from stud_service.server.api import reasons
from stud_service.server.api.errors import rich_status
from stud_service.server.proto_gen import errors_pb2
from stud_service.tournaments.errors import TournamentError

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "stud_service"
# Calls whose reason is an argument: the callee, the argument's position, and the code's position (None:
# the code is fixed, UNAUTHENTICATED for AuthError).
REASON_CALLS = {"RequestError": (1, 0), "rich_status": (1, 0), "rich_refusal": (1, 0), "AuthError": (0, None)}


def _subclasses(base: type) -> Iterator[type]:
    for cls in base.__subclasses__():
        yield cls
        yield from _subclasses(cls)


ERROR_CLASSES = {
    cls.__name__: cls for base in (DomainError, AuditError, LedgerError, TournamentError)
    for cls in (base, *_subclasses(base))
}


def _sources() -> Iterator[tuple[Path, ast.AST]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        if "proto_gen" not in path.parts:
            yield path, ast.parse(path.read_text(), str(path))


def _callee(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _status_code(node: ast.expr | None) -> grpc.StatusCode | None:
    """``grpc.StatusCode.NOT_FOUND`` -> NOT_FOUND; anything else (a variable): None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
        return grpc.StatusCode[node.attr] if node.value.attr == "StatusCode" else None
    return None


# One scan of the package serves every test here: a scan takes seconds, and one test asked per base class.
@functools.cache
def raised_reasons() -> dict[str, set[tuple[str, str]]]:
    """Every reason the code can refuse with -> the (code name, where) pairs it is raised with."""
    found: dict[str, set[tuple[str, str]]] = {}
    for path, tree in _sources():
        for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
            name, where = _callee(call), f"{path.relative_to(ROOT)}:{call.lineno}"
            if name in ERROR_CLASSES:
                cls = ERROR_CLASSES[name]
                found.setdefault(cls.reason, set()).add((cls.grpc_code_name, where))
            elif name in REASON_CALLS:
                reason_at, code_at = REASON_CALLS[name]
                reason = _argument(call, reason_at, "reason")
                if isinstance(reason, ast.Attribute) and reason.attr == "reason":
                    continue  # passes on an error's own reason, checked where that error is built
                if isinstance(reason, ast.Name) and code_at is not None \
                        and isinstance(_argument(call, code_at, "code"), ast.Name):
                    continue  # a wrapper passing on its own parameters (rich_status to rich_refusal)
                assert isinstance(reason, ast.Constant) and isinstance(reason.value, str), (
                    f"{where}: {name}'s reason must be a string literal, so that this test can see it"
                )
                if code_at is None:
                    code = grpc.StatusCode.UNAUTHENTICATED
                else:
                    code = _status_code(_argument(call, code_at, "code"))
                    if code is None and isinstance(_argument(call, code_at, "code"), ast.Attribute):
                        continue  # error.code passed on with error.reason (RequestError's own)
                    assert code is not None, f"{where}: {name}'s code must be grpc.StatusCode.<NAME>"
                found.setdefault(reason.value, set()).add((code.name, where))
    return found


def test_every_reason_the_code_can_raise_is_in_the_enum_with_its_code() -> None:
    raised = raised_reasons()
    assert {"NOT_YOUR_TURN", "TOKEN_EXPIRED", "STALE_TURN"} <= set(raised)  # the scan finds each kind
    problems = []
    for reason, uses in sorted(raised.items()):
        for code_name, where in sorted(uses):
            if reason not in reasons.REASONS:
                problems.append(f"{where}: {reason} is not a stud.v1.ErrorReason")
            elif reasons.code_of(reason).name != code_name:
                problems.append(f"{where}: {reason} raised {code_name}, not {reasons.code_of(reason).name}")
    assert not problems, "\n".join(problems)


def test_every_reason_in_the_enum_is_one_the_code_can_raise() -> None:
    """No reason is documented that nothing sends (SHUTTING_DOWN was; AUDITOR_ONLY was sent undocumented)."""
    assert set(raised_reasons()) == reasons.REASONS


def test_the_base_error_classes_are_never_raised_themselves() -> None:
    """Their reasons (INVALID_ARGUMENT, DOMAIN_ERROR, ...) would name a code, not an error."""
    bases = {name for name, cls in ERROR_CLASSES.items() if cls.__subclasses__()}
    assert {"DomainError", "InvalidArgument", "AuditError"} <= bases
    for reason in (ERROR_CLASSES[name].reason for name in bases):
        assert reason not in raised_reasons()


def test_every_reason_has_a_code_and_a_comment() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    from gen_error_reasons import reason_comments

    comments = reason_comments()
    assert set(comments) == reasons.REASONS | {reasons.UNSPECIFIED}
    for reason in reasons.REASONS:
        assert reasons.code_of(reason) is not grpc.StatusCode.OK
        assert len(comments[reason]) > 20, f"{reason} needs a comment: when it is sent, its metadata"
    assert errors_pb2.ErrorReason.Value(reasons.UNSPECIFIED) == 0


def test_a_status_is_built_only_for_an_enum_reason_with_its_code() -> None:
    """The construction check: an undocumented reason, or a documented one with another code, is a bug."""
    status = rich_status(grpc.StatusCode.FAILED_PRECONDITION, "STALE_TURN", "old", {"version": "7"})
    assert status.code is grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(ValueError, match="not a stud.v1.ErrorReason"):
        rich_status(grpc.StatusCode.FAILED_PRECONDITION, "SHUTTING_DOWN", "bye")
    with pytest.raises(ValueError, match="sent with FAILED_PRECONDITION"):
        rich_status(grpc.StatusCode.ABORTED, "STALE_TURN", "old")


def test_the_client_guide_table_is_generated_from_the_enum() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_error_reasons.py"), "--check"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    guide = (ROOT / "docs" / "clients.md").read_text()
    for reason in reasons.REASONS:
        assert f"| {reason} | {reasons.code_of(reason).name} |" in guide


def test_the_engine_errors_carry_their_metadata() -> None:
    """Numbers a client can use without parsing the message: legal amounts, bounds, the field at fault."""
    amount = engine_errors.IllegalAmount("raise to 40 or 60", (60, 40))
    assert amount.metadata == {"amounts": "40,60", "min": "40", "max": "60"}
    assert engine_errors.IllegalAmount("check takes no amount", ()).metadata == {"amounts": ""}
    assert engine_errors.BuyInOutOfLimits("buy-in", 2_000, 40_000).metadata == {"min": "2000", "max": "40000"}
    assert engine_errors.InvalidSeat("seat", 1, 6).metadata == {"min": "1", "max": "6"}
    assert engine_errors.InvalidConfig("ante", "must not be negative").metadata == {"field": "ante"}
    assert engine_errors.MalformedCommand("seed", "too long").metadata == {"field": "seed"}
