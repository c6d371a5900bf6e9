"""A faster ``__init__`` for the engine's frozen dataclasses (events, commands, legal actions).

``@dataclass(frozen=True)`` generates an ``__init__`` that stores every field through
``object.__setattr__`` (its own ``__setattr__`` refuses, being frozen).  For the small records the
engine builds by the hundred per hand that call is most of their cost.  With ``slots=True`` each
field is a slot descriptor on the class, and storing through the descriptor is about twice as fast.

``fast_frozen_init(cls)`` swaps in such an ``__init__``, with the same parameters, defaults and
order; everything else (equality, hashing, repr, refusing assignment) stays the dataclass's own.
It replaces a written-out ``__init__`` too: the engine's records spell theirs out (with the same
parameters) for mypyc, which compiles a written ``__init__`` but not a generated one.  Classes it
cannot speed up as they are (a default factory, ``__post_init__``, a field left out of ``__init__``)
keep their ``__init__``, and so do classes compiled by mypyc (setup.py): their fields are not slot
descriptors, and their compiled ``__init__`` is already the fast one.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from types import FunctionType, MemberDescriptorType
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def fast_frozen_init(cls: T) -> T:
    params = fields(cls)
    if hasattr(cls, "__post_init__") or any(
            f.default_factory is not MISSING or not f.init or f.kw_only for f in params):
        return cls
    own_init = cls.__dict__["__init__"]
    if not isinstance(own_init, FunctionType) or not all(
            isinstance(cls.__dict__.get(f.name), MemberDescriptorType) for f in params):
        return cls  # a compiled class: its __init__ is no Python code, its fields no slots
    namespace: dict[str, Any] = {}
    arguments = []
    for f in params:
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__  # the slot's own store
        if f.default is MISSING:
            arguments.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            arguments.append(f"{f.name}=_default_{f.name}")
    body = "".join(f"    _set_{f.name}(self, {f.name})\n" for f in params) or "    pass\n"
    exec(f"def __init__(self, {', '.join(arguments)}):\n{body}", namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(own_init.__annotations__)
    init.__doc__ = own_init.__doc__
    type.__setattr__(cls, "__init__", init)
    return cls
