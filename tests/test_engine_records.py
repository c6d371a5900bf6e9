"""The faster ``__init__`` of the engine's frozen records keeps them the dataclasses they were, run as
Python or compiled by mypyc."""

from __future__ import annotations

import dataclasses
import inspect
import sys
from dataclasses import dataclass, field

import pytest

from stud_service.engine import Act, ActionKind, LegalActions, PlayerActed, StartHand, TableConfig
from stud_service.engine.commands import Command
from stud_service.engine.events import EVENT_TYPES
from stud_service.engine.records import fast_frozen_init
from stud_service.engine.rules.showdown import ShowdownHand


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


def _compiled(cls: type) -> bool:
    """Built by mypyc (setup.py): the class's module is a C extension."""
    return not sys.modules[cls.__module__].__file__.endswith(".py")  # type: ignore[union-attr]


RECORDS = [*EVENT_TYPES.values(), *Command.__args__, LegalActions, ShowdownHand]


def test_engine_records_use_it() -> None:
    """Run as Python: every event, every command but StartHand (its ``extra`` has a default factory) and
    LegalActions.  Compiled (setup.py): the events' and LegalActions' ``__init__`` is compiled code, and
    commands, left interpreted, still use it."""
    if _compiled(PlayerActed):
        assert not any(inspect.isfunction(cls.__dict__["__init__"])
                       for cls in [*EVENT_TYPES.values(), LegalActions, ShowdownHand])
        assert {cls for cls in Command.__args__ if not _swapped(cls)} == {StartHand}
    else:
        assert all(_swapped(cls) for cls in EVENT_TYPES.values())
        assert {cls for cls in Command.__args__ if not _swapped(cls)} == {StartHand}
        assert _swapped(LegalActions)
    acted = PlayerActed(1, 3, ActionKind.CALL, 100, 100, False, 5)
    assert (acted.hand, acted.seat, acted.action, acted.amount, acted.chips, acted.all_in, acted.at_ms,
            acted.timeout) == (1, 3, ActionKind.CALL, 100, 100, False, 5, False)
    assert Act("p1", ActionKind.FOLD) == Act(player_id="p1", action=ActionKind.FOLD, amount=None, now_ms=0)


def _sample(annotation: object, i: int) -> object:
    """A value for a field of this annotation, different for each ``i`` (compiled classes check types).
    Compiled, the annotation is the type itself (``object`` for a union, which takes None)."""
    if isinstance(annotation, type):
        annotation = annotation.__name__
    assert isinstance(annotation, str)
    kind = annotation.split("[")[0].split(" |")[0]  # a string under Python
    samples = {"str": f"v{i}", "int": 1000 + i, "bool": i % 2 == 0, "tuple": (i,), "Options": (i,),
               "dict": {"k": i}, "TableConfig": TableConfig(name=f"c{i}"),
               "ActionKind": list(ActionKind)[i % len(ActionKind)]}
    return samples.get(kind)  # None for the evaluator's hand values, which may be None


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__name__)
def test_every_record_takes_its_fields_in_order_with_their_defaults(cls: type) -> None:
    """The written-out ``__init__`` of each record is the dataclass's: each field by position or by
    name, in field order, and every default the field's own."""
    params = dataclasses.fields(cls)
    values = [_sample(f.type, i) for i, f in enumerate(params)]
    by_position = cls(*values)
    by_name = cls(**{f.name: v for f, v in zip(params, values, strict=True)})
    names = [f.name for f in params]
    assert [getattr(by_position, n) for n in names] == [getattr(by_name, n) for n in names] == values
    required = [v for f, v in zip(params, values, strict=True)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    defaulted = cls(*required)
    for f in params[len(required):]:
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
        assert getattr(defaulted, f.name) == default
    with pytest.raises(TypeError):
        cls(*values, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(by_position, params[0].name, values[0])
