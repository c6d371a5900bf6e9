"""The faster ``__init__`` of the engine's frozen records keeps them the dataclasses they were."""

from __future__ import annotations

import dataclasses
import inspect
from dataclasses import dataclass, field

import pytest

from stud_service.engine import Act, ActionKind, LegalActions, PlayerActed, StartHand
from stud_service.engine.commands import Command
from stud_service.engine.events import EVENT_TYPES
from stud_service.engine.records import fast_frozen_init


@dataclass(frozen=True, slots=True)
class _Plain:
    a: int
    b: str
    c: int | None = None
    d: bool = False


@fast_frozen_init
@dataclass(frozen=True, slots=True)
class _Fast:
    a: int
    b: str
    c: int | None = None
    d: bool = False


def _swapped(cls: type) -> bool:
    """The dataclass's own frozen ``__init__`` stores through ``object.__setattr__``; ours does not."""
    return "__setattr__" not in cls.__init__.__code__.co_names


def test_same_signature_values_and_defaults_as_the_dataclass() -> None:
    assert _swapped(_Fast) and not _swapped(_Plain)
    assert str(inspect.signature(_Fast)) == str(inspect.signature(_Plain))
    calls = [((1, "x"), {}), ((1, "x", 3), {}), ((1,), {"b": "y", "d": True}), ((), {"a": 2, "b": "z"})]
    for args, kwargs in calls:
        fast, plain = _Fast(*args, **kwargs), _Plain(*args, **kwargs)
        assert dataclasses.astuple(fast) == dataclasses.astuple(plain)
        assert repr(fast).replace("_Fast", "_Plain") == repr(plain)
    assert _Fast(1, "x") == _Fast(1, "x") and hash(_Fast(1, "x")) == hash(_Fast(1, "x"))
    assert _Fast(1, "x") != _Fast(1, "x", 2)


def test_wrong_arguments_are_refused_as_before() -> None:
    calls = [((), {}), ((1, "x", 3, True, 5), {}), ((1, "x"), {"e": 1}), ((1,), {"a": 1, "b": "x"})]
    for args, kwargs in calls:
        with pytest.raises(TypeError):
            _Plain(*args, **kwargs)
        with pytest.raises(TypeError):
            _Fast(*args, **kwargs)


def test_still_frozen() -> None:
    record = _Fast(1, "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.a = 2  # type: ignore[misc]


def test_a_default_factory_keeps_the_dataclass_init() -> None:
    @fast_frozen_init
    @dataclass(frozen=True, slots=True)
    class WithFactory:
        items: dict = field(default_factory=dict)

    assert not _swapped(WithFactory)
    assert WithFactory().items == {} and WithFactory().items is not WithFactory().items


def test_engine_records_use_it() -> None:
    """Every event, every command but StartHand (its ``extra`` has a default factory) and LegalActions."""
    assert all(_swapped(cls) for cls in EVENT_TYPES.values())
    assert {cls for cls in Command.__args__ if not _swapped(cls)} == {StartHand}
    assert _swapped(LegalActions)
    acted = PlayerActed(1, 3, ActionKind.CALL, 100, 100, False, 5)
    assert (acted.hand, acted.seat, acted.action, acted.amount, acted.chips, acted.all_in, acted.at_ms,
            acted.timeout) == (1, 3, ActionKind.CALL, 100, 100, False, 5, False)
    assert Act("p1", ActionKind.FOLD) == Act(player_id="p1", action=ActionKind.FOLD, amount=None, now_ms=0)
