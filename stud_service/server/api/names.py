"""Resource names and ids: one parser per kind of name, one rule per kind of id, for every method of every
transport (the web port hands its requests to the same servicer methods).

A name is parsed whole before anything reads or writes the log; one that is not of its kind is refused
INVALID_ARGUMENT / MALFORMED_REQUEST naming the request ``field`` it came in, and nothing it holds reaches
PostgreSQL (whose text cannot hold NUL). An id has the same rule wherever it appears, in a name or alone:

==========  =================================================  ===============================================
id          rule                                               why
==========  =================================================  ===============================================
table       1..63 characters of ``[a-z0-9-]``, a letter first   CreateTable's ``table_id``; names a stream
tournament  1..56 characters of ``[a-z0-9-]``, a letter first   its tables are ``{tournament}-t{n}``
hand        a number from 1, at most 18 digits                  the dealer numbers a table's hands from 1
player      1..64 printable characters, not only spaces         a token's ``sub`` (``auth.valid_player_id``):
                                                                every id a token can carry, and nothing else
currency    an ISO 4217 code                                    ``stud_service.currency``
==========  =================================================  ===============================================

A player id may hold ``/`` (an identity provider's subject may), so a pattern reads it with its rule in
place: in ``players/{player}/accounts/{currency}`` the currency ends the name and the player is all before.

Adding a kind is a line (and a rule, if its ids are new)::

    TABLES = Kind("a table name", ["tables/{table}"], lambda table: table, table=TABLE_ID)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from stud_service.auth import valid_player_id
from stud_service.currency import is_currency
from stud_service.ledger.names import AccountName
from stud_service.server.api.errors import malformed, quoted
from stud_service.tournaments.decide import TOURNAMENT_ID as TOURNAMENT_ID_PATTERN

Parsed = TypeVar("Parsed")
_VARIABLE = re.compile(r"\{([a-z_]+)\}")


def _any_text(text: str) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class IdRule:
    """What one kind of id may be: text ``pattern`` matches whole and (for what a pattern cannot say)
    ``valid`` accepts; ``says`` is the rule in words, for refusals."""

    says: str
    pattern: re.Pattern[str]
    valid: Callable[[str], bool] = _any_text

    def holds(self, text: str) -> bool:
        return self.pattern.fullmatch(text) is not None and self.valid(text)

    def check(self, text: str, field: str) -> str:
        """``text`` if it is such an id; MALFORMED_REQUEST naming ``field`` otherwise."""
        if not self.holds(text):
            raise malformed(f"{field} must be {self.says}", field)
        return text


TABLE_ID = IdRule("1..63 characters of [a-z0-9-] starting with a letter", re.compile(r"[a-z][a-z0-9-]{0,62}"))
# The tournament's own rule (its tables' ids, ``{id}-t{n}``, must stay table ids).
TOURNAMENT_ID = IdRule("1..56 characters of [a-z0-9-] starting with a letter", TOURNAMENT_ID_PATTERN)
HAND_NUMBER = IdRule("a number from 1, at most 18 digits", re.compile(r"[1-9][0-9]{0,17}"))
PLAYER_ID = IdRule(
    "1..64 printable characters, not only spaces, as a token's sub",
    re.compile(r".{1,64}", re.DOTALL),
    valid_player_id,
)
CURRENCY = IdRule("an ISO 4217 code", re.compile(r"[A-Z]{3}"), is_currency)


class Kind(Generic[Parsed]):
    """One kind of resource name: its ``patterns`` (``{id}`` for each id, ruled by ``rules``), and ``make``,
    which builds what the name means from its ids (passed by their names, as text)."""

    def __init__(
        self, what: str, patterns: Sequence[str], make: Callable[..., Parsed], **rules: IdRule
    ) -> None:
        self.what = what
        self.patterns = tuple(patterns)
        self._make = make
        self._rules = rules
        self._compiled = tuple(self._compile(pattern) for pattern in self.patterns)
        ids = [f"{{{name}}}: {rule.says}" for name, rule in rules.items()]
        self._shape = "; ".join([" or ".join(self.patterns), *ids])

    def _compile(self, pattern: str) -> re.Pattern[str]:
        parts, position = [], 0
        for variable in _VARIABLE.finditer(pattern):
            parts.append(re.escape(pattern[position : variable.start()]))
            rule = self._rules[variable.group(1)]
            parts.append(f"(?P<{variable.group(1)}>{rule.pattern.pattern})")
            position = variable.end()
        parts.append(re.escape(pattern[position:]))
        return re.compile("".join(parts), re.DOTALL)

    def parse(self, name: str, field: str = "name") -> Parsed:
        """What ``name`` means; MALFORMED_REQUEST naming ``field`` when it is not a name of this kind."""
        for compiled in self._compiled:
            matched = compiled.fullmatch(name)
            if matched is None:
                continue
            ids = {key: value for key, value in matched.groupdict().items() if value is not None}
            if all(self._rules[key].valid(value) for key, value in ids.items()):
                return self._make(**ids)
        raise malformed(f"{quoted(name)} is not {self.what} ({self._shape})", field)

    def checked(self, field: str) -> Callable[[Any], str]:
        """A request's ``field``, parsed as a name of this kind: the resource an access record names, so
        a name that does not parse is refused before anything is recorded (server.api.access)."""

        def resource(request: Any) -> str:
            name = str(getattr(request, field))
            self.parse(name, field)
            return name

        return resource


def _hand(table: str, hand: str) -> tuple[str, int]:
    return table, int(hand)


def _account(currency: str, player: str | None = None) -> AccountName:
    return AccountName(player, currency)


TABLES: Kind[str] = Kind("a table name", ["tables/{table}"], lambda table: table, table=TABLE_ID)
HANDS: Kind[tuple[str, int]] = Kind(
    "a hand name", ["tables/{table}/hands/{hand}"], _hand, table=TABLE_ID, hand=HAND_NUMBER
)
TOURNAMENTS: Kind[str] = Kind(
    "a tournament name", ["tournaments/{tournament}"], lambda tournament: tournament, tournament=TOURNAMENT_ID
)
PLAYERS: Kind[str] = Kind("a player name", ["players/{player}"], lambda player: player, player=PLAYER_ID)
ACCOUNTS: Kind[AccountName] = Kind(
    "an account name",
    ["players/{player}/accounts/{currency}", "house/accounts/{currency}"],
    _account,
    player=PLAYER_ID,
    currency=CURRENCY,
)
