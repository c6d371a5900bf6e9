"""A tournament's structure: what is fixed when it is created (RULES.md §11), bounded and validated like a
table's config (``TournamentConfigError`` names the first field at fault).

Amounts of money (``buy_in``, ``fee``) are integers in the currency's smallest unit; ``currency`` "" is play
money (no account is debited or credited: buy-in and fee are 0, and so is the prize pool).  Chips
(``starting_stack``, the levels' stakes) are tournament chips, not money.

Levels are numbered from 1 in the order of ``levels``, breaks left out: ``late_registration_levels = 4``
keeps late registration open through the fourth level of play and the break after it, if one follows.
"""

from __future__ import annotations

import enum
import unicodedata
from dataclasses import dataclass, field, fields
from typing import Any

from stud_service.currency import is_currency
from stud_service.engine.config import (
    DEFAULT_HANDS_PER_GAME,
    MAX_ACTION_CLOCK_SECONDS,
    MAX_CHIPS,
    MAX_SEATS,
    MIN_SEATS,
    PLAY_CHIPS,
    TIME_BANK_FIELDS,
    SameNetworkRule,
    TableConfig,
    Variant,
)
from stud_service.engine.errors import InvalidConfig
from stud_service.tournaments.errors import TournamentConfigError
from stud_service.tournaments.rules.payouts import BASIS_POINTS

MAX_NAME_CHARS = 80  # a table's name is the tournament's and its table number, within a table's 100
MAX_LEVELS = 100
MAX_LEVEL_MINUTES = 240
MAX_BREAK_MINUTES = 60
MAX_ENTRANTS = 10_000
MAX_RE_ENTRIES = 10
# The last millisecond of the year 9999: a start time any Timestamp can hold.
MAX_START_MS = 253_402_300_799_999


class TournamentKind(enum.StrEnum):
    """§11 Kinds: a sit & go starts when its last seat is taken; a scheduled tournament at its start time."""

    SIT_AND_GO = "SIT_AND_GO"
    SCHEDULED = "SCHEDULED"


class CancellationPayout(enum.StrEnum):
    """§11 Cancellation: the rest of the pool goes in proportion to chips, or in equal shares."""

    CHIPS = "CHIPS"
    EQUAL = "EQUAL"


@dataclass(frozen=True)
class Level:
    """One level: stakes as a table's (§1) and how many minutes it lasts.  A break has no play and no
    stakes (all 0)."""

    ante: int = 0
    bring_in: int = 0
    small_bet: int = 0
    big_bet: int = 0
    minutes: int = 10
    is_break: bool = False


def _level(ante: int, bring_in: int, small_bet: int, minutes: int = 10) -> Level:
    return Level(ante, bring_in, small_bet, 2 * small_bet, minutes)


# A stud structure for a starting stack of 1,500: ten-minute levels, a five-minute break after the fifth.
DEFAULT_LEVELS: tuple[Level, ...] = (
    _level(5, 10, 20), _level(10, 15, 30), _level(15, 25, 50), _level(20, 35, 75), _level(25, 50, 100),
    Level(minutes=5, is_break=True),
    _level(50, 75, 150), _level(75, 100, 200), _level(100, 150, 300), _level(150, 200, 400),
    _level(200, 300, 600), _level(300, 500, 1_000), _level(500, 750, 1_500),
)


@dataclass(frozen=True)
class TournamentConfig:
    """Everything fixed when a tournament is created (§11).

    ``payouts``: shares of the prize pool by place in basis points adding to 10,000, best place first and
    never more for a worse place; empty, the default table for the number of players
    (``rules.payouts.default_payout_table``).  ``re_entries``: how many times a player out of chips may
    buy in again, while the level number is at most ``re_entry_until_level``.  ``time_bank_seconds``,
    ``time_bank_refill_seconds`` and ``time_bank_refill_hands``: its tables' time bank (§7: a tournament may
    set its own; bounded as a table's; 0, none).  ``same_network``: players of one household kept apart
    (docs/player-protection.md): the service refuses a registration whose session shares a device id (or by
    the rule an address, a network) with a player registered and still in; the tournament's own seating,
    its draws and moves, is never refused.  ``rotation`` and ``hands_per_game``: a mixed tournament
    (RULES.md §13), its tables' rotation, checked as a table's (the first game is ``variant``); each table
    counts its own hands, the levels change the stakes and not the game.  Empty: every hand is ``variant``.
    """

    name: str = ""
    variant: Variant = Variant.STUD
    kind: TournamentKind = TournamentKind.SIT_AND_GO
    start_ms: int = 0
    levels: tuple[Level, ...] = DEFAULT_LEVELS
    starting_stack: int = 1_500
    seats_per_table: int = MAX_SEATS
    min_entrants: int = 2
    max_entrants: int = MAX_SEATS
    late_registration_levels: int = 0
    re_entries: int = 0
    re_entry_until_level: int = 0
    buy_in: int = 1_000
    fee: int = 100
    currency: str = "USD"
    payouts: tuple[int, ...] = field(default=())
    cancellation_payout: CancellationPayout = CancellationPayout.CHIPS
    action_clock_seconds: int = 30
    time_bank_seconds: int = 0
    time_bank_refill_seconds: int = 0
    time_bank_refill_hands: int = 0
    same_network: SameNetworkRule = SameNetworkRule.OFF
    rotation: tuple[Variant, ...] = ()
    hands_per_game: int = DEFAULT_HANDS_PER_GAME

    @property
    def play_levels(self) -> int:
        """How many levels of play the table has (breaks left out)."""
        return sum(not level.is_break for level in self.levels)

    @property
    def max_entries(self) -> int:
        """Entries the tournament can take: every player once, and each re-entry."""
        return self.max_entrants * (1 + self.re_entries)

    @property
    def entries_close_level(self) -> int:
        """The last level number at which anyone may still buy in (late or again); 0: none after the start."""
        return max(self.late_registration_levels, self.re_entry_until_level if self.re_entries else 0)

    def validate(self) -> TournamentConfig:
        """Return self, or raise TournamentConfigError naming the first field at fault."""
        for name in ("start_ms", "starting_stack", "seats_per_table", "min_entrants", "max_entrants",
                     "late_registration_levels", "re_entries", "re_entry_until_level", "buy_in", "fee",
                     "action_clock_seconds"):
            _integer(name, getattr(self, name))
        if not isinstance(self.name, str) or len(self.name) > MAX_NAME_CHARS or not _plain_text(self.name):
            raise TournamentConfigError(
                "name", f"must be text of at most {MAX_NAME_CHARS} characters, without control characters")
        if not isinstance(self.variant, Variant):
            raise TournamentConfigError("variant", f"must be one of {', '.join(Variant)}")
        if not isinstance(self.same_network, SameNetworkRule):
            raise TournamentConfigError("same_network", f"must be one of {', '.join(SameNetworkRule)}")
        self._validate_kind()
        self._validate_levels()
        self._validate_entries()
        self._validate_money()
        if not 0 < self.action_clock_seconds <= MAX_ACTION_CLOCK_SECONDS:
            raise TournamentConfigError("action_clock_seconds", f"must be 1..{MAX_ACTION_CLOCK_SECONDS}")
        self._validate_time_bank()
        self._validate_rotation()
        return self

    def _validate_rotation(self) -> None:
        """§13: its tables' rotation, checked as a table's is (the table's own rules say what is wrong)."""
        try:
            TableConfig(variant=self.variant, rotation=self.rotation, hands_per_game=self.hands_per_game,
                        min_buy_in=1).validate()
        except InvalidConfig as error:
            raise TournamentConfigError(error.field, error.message.partition(": ")[2]) from None

    def _validate_time_bank(self) -> None:
        """§7: its tables' time bank, bounded as a table's is (the table's own rules say what is wrong)."""
        try:
            TableConfig(**{name: getattr(self, name) for name in TIME_BANK_FIELDS}).validate()
        except InvalidConfig as error:
            raise TournamentConfigError(error.field, error.message.partition(": ")[2]) from None

    def _validate_kind(self) -> None:
        if not isinstance(self.kind, TournamentKind):
            raise TournamentConfigError("kind", f"must be one of {', '.join(TournamentKind)}")
        if self.kind is TournamentKind.SCHEDULED:
            if not 0 < self.start_ms <= MAX_START_MS:
                raise TournamentConfigError("start_ms", "a scheduled tournament needs a start time (ms)")
        elif self.start_ms:
            raise TournamentConfigError("start_ms", "must be 0: a sit & go starts when its seats are taken")
        if not isinstance(self.cancellation_payout, CancellationPayout):
            modes = ", ".join(CancellationPayout)
            raise TournamentConfigError("cancellation_payout", f"must be one of {modes}")

    def _validate_levels(self) -> None:
        levels = self.levels
        if not isinstance(levels, tuple) or not 0 < len(levels) <= MAX_LEVELS:
            raise TournamentConfigError("levels", f"must hold 1..{MAX_LEVELS} levels")
        for index, level in enumerate(levels):
            _validate_level(f"levels[{index}]", level)
        if levels[0].is_break or levels[-1].is_break:
            raise TournamentConfigError("levels", "must begin and end with a level of play")

    def _validate_entries(self) -> None:
        if not MIN_SEATS <= self.seats_per_table <= MAX_SEATS:
            raise TournamentConfigError("seats_per_table", f"must be {MIN_SEATS}..{MAX_SEATS}")
        if not 2 <= self.max_entrants <= MAX_ENTRANTS:
            raise TournamentConfigError("max_entrants", f"must be 2..{MAX_ENTRANTS:,}")
        if not 2 <= self.min_entrants <= self.max_entrants:
            raise TournamentConfigError("min_entrants", "must be 2..max_entrants")
        if not 0 <= self.late_registration_levels <= self.play_levels:
            raise TournamentConfigError("late_registration_levels", f"must be 0..{self.play_levels}")
        if self.kind is TournamentKind.SIT_AND_GO and self.late_registration_levels:
            raise TournamentConfigError("late_registration_levels", "must be 0: a sit & go starts full")
        if not 0 <= self.re_entries <= MAX_RE_ENTRIES:
            raise TournamentConfigError("re_entries", f"must be 0..{MAX_RE_ENTRIES}")
        if self.re_entries and not 0 < self.re_entry_until_level <= self.play_levels:
            raise TournamentConfigError("re_entry_until_level", f"must be 1..{self.play_levels} (the levels)")
        if not self.re_entries and self.re_entry_until_level:
            raise TournamentConfigError("re_entry_until_level", "must be 0 without re-entries")
        if self.starting_stack <= 0 or self.starting_stack * self.max_entries > MAX_CHIPS:
            # Every chip of the tournament may end at one table: keep it within a table's bounds.
            raise TournamentConfigError(
                "starting_stack", f"must be positive, and times the most entries at most {MAX_CHIPS:,}")

    def _validate_money(self) -> None:
        if self.currency != PLAY_CHIPS and not is_currency(self.currency):
            raise TournamentConfigError("currency", "must be an ISO 4217 code, or empty for play money")
        for name in ("buy_in", "fee"):
            amount = getattr(self, name)
            if amount < 0 or amount * self.max_entries > MAX_CHIPS:
                raise TournamentConfigError(name, f"must be 0.., times most entries {MAX_CHIPS:,} at most")
            if self.currency == PLAY_CHIPS and amount:
                raise TournamentConfigError(name, "must be 0 in a play-money tournament")
        if self.currency != PLAY_CHIPS and self.buy_in == 0:
            raise TournamentConfigError("buy_in", "must be positive: it is the prize pool")
        payouts = self.payouts
        if not isinstance(payouts, tuple):
            raise TournamentConfigError("payouts", "must be a list of basis points")
        if not payouts:
            return
        if len(payouts) > self.min_entrants:
            raise TournamentConfigError("payouts", "must pay no more places than min_entrants")
        for place, share in enumerate(payouts, 1):
            if not isinstance(share, int) or isinstance(share, bool) or not 0 < share <= BASIS_POINTS:
                raise TournamentConfigError("payouts", f"place {place}'s share must be 1..{BASIS_POINTS:,}")
        if any(worse > better for better, worse in zip(payouts, payouts[1:], strict=False)):
            raise TournamentConfigError("payouts", "must not pay a place more than a better one")
        if sum(payouts) != BASIS_POINTS:
            raise TournamentConfigError("payouts", f"must add up to {BASIS_POINTS:,} basis points")


def _integer(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TournamentConfigError(name, f"must be an integer, got {str(value)[:40]!r}")


def _validate_level(where: str, level: Level) -> None:
    if not isinstance(level, Level):
        raise TournamentConfigError(where, "must be a level")
    if not isinstance(level.is_break, bool):
        raise TournamentConfigError(f"{where}.is_break", "must be true or false")
    for name in ("ante", "bring_in", "small_bet", "big_bet", "minutes"):
        _integer(f"{where}.{name}", getattr(level, name))
    if level.is_break:
        if not 0 < level.minutes <= MAX_BREAK_MINUTES:
            raise TournamentConfigError(f"{where}.minutes", f"a break lasts 1..{MAX_BREAK_MINUTES} minutes")
        for name in ("ante", "bring_in", "small_bet", "big_bet"):
            if getattr(level, name):
                raise TournamentConfigError(f"{where}.{name}", "must be 0 at a break: nothing is played")
        return
    if not 0 < level.minutes <= MAX_LEVEL_MINUTES:
        raise TournamentConfigError(f"{where}.minutes", f"a level lasts 1..{MAX_LEVEL_MINUTES} minutes")
    try:  # a level's stakes are a table's (§1): the table's own rules say what is wrong
        TableConfig(ante=level.ante, bring_in=level.bring_in, small_bet=level.small_bet,
                    big_bet=level.big_bet, min_buy_in=1, max_buy_in=MAX_CHIPS).validate()
    except InvalidConfig as error:
        raise TournamentConfigError(f"{where}.{error.field}", error.message.partition(": ")[2]) from None


def _plain_text(text: str) -> bool:
    return not any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


def config_to_json(config: TournamentConfig) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(config):
        value = getattr(config, f.name)
        if f.name == "levels":
            value = [{g.name: getattr(level, g.name) for g in fields(Level)} for level in value]
        elif f.name == "payouts":
            value = list(value)
        elif f.name == "same_network" and value is SameNetworkRule.OFF:
            continue  # written only when set, as the time bank
        elif f.name == "rotation":
            if not value:
                continue  # a mixed tournament's only (§13): any other reads as it always did
            value = [game.value for game in value]
        elif f.name == "hands_per_game" and not config.rotation:
            continue
        elif isinstance(value, enum.Enum):
            value = value.value
        elif f.name in TIME_BANK_FIELDS and not value:
            continue  # written only when set: a tournament without a time bank reads as it always did
        out[f.name] = value
    return out


def config_from_json(data: Any) -> TournamentConfig:
    """Build a config from JSON (unknown keys are an error, missing ones take defaults); not validated."""
    if not isinstance(data, dict):
        raise TournamentConfigError("config", "must be an object")
    known = {f.name for f in fields(TournamentConfig)}
    unknown = set(data) - known
    if unknown:
        raise TournamentConfigError(sorted(unknown)[0], "is not a tournament config field")
    values = dict(data)
    enums = (("variant", Variant), ("kind", TournamentKind), ("cancellation_payout", CancellationPayout),
             ("same_network", SameNetworkRule))
    for name, kind in enums:
        if name in values:
            try:
                values[name] = kind(values[name])
            except ValueError:
                raise TournamentConfigError(name, f"must be one of {', '.join(kind)}") from None
    if "rotation" in values:
        try:
            values["rotation"] = tuple(Variant(game) for game in values["rotation"])
        except (ValueError, TypeError):
            raise TournamentConfigError("rotation", f"must list games, each one of {', '.join(Variant)}") \
                from None
    if "levels" in values:
        levels = values["levels"]
        if not isinstance(levels, list) or not all(isinstance(level, dict) for level in levels):
            raise TournamentConfigError("levels", "must be a list of levels")
        level_fields = {f.name for f in fields(Level)}
        for index, level in enumerate(levels):
            if set(level) - level_fields:
                raise TournamentConfigError(f"levels[{index}].{sorted(set(level) - level_fields)[0]}",
                                            "is not a level field")
        values["levels"] = tuple(Level(**level) for level in levels)
    if "payouts" in values:
        if not isinstance(values["payouts"], list):
            raise TournamentConfigError("payouts", "must be a list of basis points")
        values["payouts"] = tuple(values["payouts"])
    return TournamentConfig(**values)
