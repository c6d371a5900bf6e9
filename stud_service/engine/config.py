"""A table's configuration: variant or rotation, stakes, buy-ins, seats, options, money (RULES.md §1-4, 7, 10,
13)."""

from __future__ import annotations

import enum
import unicodedata
from dataclasses import dataclass, fields, replace
from typing import Any

from stud_service.currency import is_currency
from stud_service.engine.errors import InvalidConfig

MIN_SEATS = 2
MAX_SEATS = 8
MAX_NAME_CHARS = 100
# The largest chip amount a config may set (ante, bring-in, bets, buy-ins): 10^12 units, $10 billion in
# cents. Eight seats at the largest buy-in hold 8 * 10^12 chips, so every stack, top-up, bet and pot the
# engine forms stays below 2^53 (exact as a JSON number in any client, and far inside int64) even after
# one seat has won all seven others' largest buy-ins a thousand times over.
MAX_CHIPS = 10**12
# The longest action clock: a day. Deadlines (now + clock) then stay valid Timestamps in every view.
MAX_ACTION_CLOCK_SECONDS = 86_400
# The longest a freed seat is held for the first player waiting (docs/waiting-list.md): an hour; an offer
# nobody answers holds a seat empty, so keep it far shorter than a day.
MAX_SEAT_OFFER_SECONDS = 3_600
_CHIP_FIELDS = ("ante", "bring_in", "small_bet", "big_bet", "min_buy_in", "max_buy_in")
# §10: the highest rake rate, 10%, in basis points.
MAX_RAKE_BASIS_POINTS = 1000
RAKE_CAP_FIELDS = ("rake_cap_2", "rake_cap_3_4", "rake_cap_5_plus")
# The currency of a play-money table: its chips are not money, no account is debited or credited for
# it. A config decoded from JSON without a currency (a table created before money existed) has it too.
PLAY_CHIPS = ""
# A tournament table (RULES.md §11): the tournament's id, and the number of the level its hands are dealt
# at. Written to JSON only when set, so a cash table's config reads exactly as it did before them.
TOURNAMENT_FIELDS = ("tournament_id", "tournament_level")
MAX_TOURNAMENT_ID_CHARS = 63
MAX_TOURNAMENT_LEVEL = 1_000
# The longest a hand may stand still before the table voids it (RULES.md §12): a day, as the action clock.
MAX_INTERRUPTED_HAND_VOID_SECONDS = 86_400
# §7's time bank and the table chat (docs/chat.md).
MAX_TIME_BANK_SECONDS = 600
MAX_TIME_BANK_REFILL_HANDS = 1_000
TIME_BANK_FIELDS = ("time_bank_seconds", "time_bank_refill_seconds", "time_bank_refill_hands")
CHAT_FIELDS = ("chat_spectators", "chat_all_in_silence")
# A mixed table's rotation (RULES.md §13): two or three different games, each played for 1..100 hands.
MIN_ROTATION_GAMES = 2
DEFAULT_HANDS_PER_GAME = 8
MAX_HANDS_PER_GAME = 100
# A game's own stakes at a mixed table (§13): (game, ante, bring_in, small_bet, big_bet).
GAME_STAKES_FIELDS = ("ante", "bring_in", "small_bet", "big_bet")
# Options written to JSON only when they differ from their default (off), so the events of a table that does
# not use them read exactly as they did before the option existed.
OPTIONAL_FIELDS = {"interrupted_hand_void_seconds": 0, **dict.fromkeys(TIME_BANK_FIELDS, 0),
                   **dict.fromkeys(CHAT_FIELDS, False), "same_network": "OFF", "rotation": [],
                   "hands_per_game": DEFAULT_HANDS_PER_GAME, "game_stakes": []}


class Variant(enum.StrEnum):
    STUD = "STUD"
    STUD_HI_LO = "STUD_HI_LO"
    RAZZ = "RAZZ"


GameStakes = tuple[Variant, int, int, int, int]


class SameNetworkRule(enum.StrEnum):
    """Which players may not sit at the table together (docs/player-protection.md): a newcomer whose current
    session shares a device id with a seated player's (DEVICE and every rule after it), the same address
    (ADDRESS), or the same network, /24 for IPv4 and /64 for IPv6 (PREFIX). The service checks it at SitDown:
    the engine only carries it, since sessions are not the game's."""

    OFF = "OFF"
    DEVICE = "DEVICE"
    ADDRESS = "ADDRESS"
    PREFIX = "PREFIX"


class BringInTiebreak(enum.StrEnum):
    """How equal door cards are told apart for the bring-in (RULES.md §3)."""

    SUIT = "SUIT"
    POSITION = "POSITION"


@dataclass(frozen=True)
class TableConfig:
    """Everything fixed when a table is created.  Amounts are integer chip units (cents).

    The defaults are a $2/$4 table in cents (RULES.md §1's first seed example) with buy-ins of
    10 to 100 big bets.  ``allow_full_bring_in`` lets the bring-in equal the small bet; when it
    does, posting the bring-in is the completion.

    ``currency`` is the ISO 4217 code the table plays for, or "" for play money (chips that are not
    money; also every table created before money existed).  The rake rule (§10):
    ``rake_basis_points`` (0 = no rake) and a cap per hand for 2, 3-4 and 5 or more players dealt in,
    in the currency's smallest unit.

    ``tournament_id`` (§11): set, the table is one of that tournament's.  Its chips are tournament chips,
    not money (its currency is "" and it takes no rake: the tournament's fee is the house's), its stakes
    are the level ``tournament_level`` that ``StartHand.stakes`` deals each hand at, and a player sitting
    out is still dealt in and acts by the timeout rule at once.

    ``interrupted_hand_void_seconds`` (§12): 0 (off), or how long a hand may go without an action or a deal
    before it is voided: longer than the action clock, so a hand whose clocks run is never voided.
    The time bank (§7, off while ``time_bank_seconds`` is 0): each seated player holds a reserve of up to
    ``time_bank_seconds`` that runs when their action clock has run out; it grows by
    ``time_bank_refill_seconds`` after every ``time_bank_refill_hands`` hands they were dealt (both 0: never).
    The chat (docs/chat.md): ``chat_spectators`` lets players watching without a seat write too;
    ``chat_all_in_silence`` silences the players still in a hand once one of them is all-in.

    A mixed table (§13): ``rotation`` holds the games it plays in turn, two or three different ones, the first
    of them its ``variant``; each for ``hands_per_game`` hands that reach their end (1..100, default 8; §13
    sets no bounds: one hand is the least a game can be played for, and beyond a hundred the rotation is
    hardly one).  Empty (the default): the table plays ``variant`` alone and ``hands_per_game`` is unused.
    ``game_stakes``: the games of the rotation that have their own stakes, ``(game, ante, bring_in, small_bet,
    big_bet)`` each, checked as the table's are; the others play at the table's.  A tournament table has none:
    its level sets the stakes of every game (§13, §11).
    """

    variant: Variant = Variant.STUD
    ante: int = 50
    bring_in: int = 100
    small_bet: int = 200
    big_bet: int = 400
    min_buy_in: int = 4_000
    max_buy_in: int = 40_000
    seats: int = MAX_SEATS
    action_clock_seconds: int = 30
    bring_in_tiebreak: BringInTiebreak = BringInTiebreak.SUIT
    uncapped_heads_up: bool = False
    allow_full_bring_in: bool = False
    name: str = ""
    seat_offer_seconds: int = 60
    currency: str = "USD"
    rake_basis_points: int = 0
    rake_cap_2: int = 0
    rake_cap_3_4: int = 0
    rake_cap_5_plus: int = 0
    tournament_id: str = ""
    tournament_level: int = 0
    interrupted_hand_void_seconds: int = 0
    time_bank_seconds: int = 0
    time_bank_refill_seconds: int = 0
    time_bank_refill_hands: int = 0
    chat_spectators: bool = False
    chat_all_in_silence: bool = False
    same_network: SameNetworkRule = SameNetworkRule.OFF
    rotation: tuple[Variant, ...] = ()
    hands_per_game: int = DEFAULT_HANDS_PER_GAME
    game_stakes: tuple[GameStakes, ...] = ()

    @property
    def mixed(self) -> bool:
        """A table whose games rotate (§13)."""
        return len(self.rotation) > 0

    def for_game(self, game: Variant) -> TableConfig:
        """The config a hand of ``game`` is dealt with (§13): this one, at that game's own stakes if it has
        them, else at the table's, the same in every game."""
        for entry in self.game_stakes:
            if entry[0] is game:
                return replace(self, ante=entry[1], bring_in=entry[2], small_bet=entry[3], big_bet=entry[4])
        return self

    @property
    def tournament(self) -> bool:
        """A table a tournament drives (§11): its stakes follow the tournament's levels, its chips are the
        tournament's, and an absent player is dealt in."""
        return self.tournament_id != ""

    def validate(self) -> TableConfig:
        """Return self, or raise InvalidConfig naming the first inconsistent field.

        A currency of "" is play money (and what a table created before money existed replays as).
        """
        for field in (*_CHIP_FIELDS, "seats", "action_clock_seconds", "seat_offer_seconds",
                      "rake_basis_points", *RAKE_CAP_FIELDS, "tournament_level",
                      "interrupted_hand_void_seconds"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidConfig(field, f"must be an integer, got {str(value)[:40]!r}")
        for field in _CHIP_FIELDS:
            if getattr(self, field) > MAX_CHIPS:
                raise InvalidConfig(field, f"must be at most {MAX_CHIPS:,}")
        for field in ("uncapped_heads_up", "allow_full_bring_in"):
            if not isinstance(getattr(self, field), bool):
                raise InvalidConfig(field, "must be true or false")
        if not isinstance(self.variant, Variant):
            raise InvalidConfig("variant", f"must be one of {', '.join(Variant)}")
        if not isinstance(self.bring_in_tiebreak, BringInTiebreak):
            raise InvalidConfig("bring_in_tiebreak", f"must be one of {', '.join(BringInTiebreak)}")
        if not isinstance(self.same_network, SameNetworkRule):
            raise InvalidConfig("same_network", f"must be one of {', '.join(SameNetworkRule)}")
        if not isinstance(self.name, str) or len(self.name) > MAX_NAME_CHARS or not plain_text(self.name):
            raise InvalidConfig(
                "name", f"must be text of at most {MAX_NAME_CHARS} characters, without control characters")
        if self.ante < 0:
            raise InvalidConfig("ante", "must not be negative")
        if self.small_bet <= 0:
            raise InvalidConfig("small_bet", "must be positive")
        if self.bring_in <= 0:
            raise InvalidConfig("bring_in", "must be positive")
        full_bring_in = self.bring_in == self.small_bet
        if self.bring_in > self.small_bet or (full_bring_in and not self.allow_full_bring_in):
            # Names only what this config allows: allow_full_bring_in is not a client setting.
            bound = "at most" if self.allow_full_bring_in else "less than"
            raise InvalidConfig("bring_in", f"must be {bound} small_bet")
        if self.big_bet < self.small_bet:
            raise InvalidConfig("big_bet", "must be at least small_bet")
        if self.min_buy_in <= 0:
            raise InvalidConfig("min_buy_in", "must be positive")
        if self.max_buy_in < self.min_buy_in:
            raise InvalidConfig("max_buy_in", "must be at least min_buy_in")
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise InvalidConfig("seats", f"must be {MIN_SEATS}..{MAX_SEATS}")
        if not 0 < self.action_clock_seconds <= MAX_ACTION_CLOCK_SECONDS:
            raise InvalidConfig("action_clock_seconds", f"must be 1..{MAX_ACTION_CLOCK_SECONDS} seconds")
        if not 0 < self.seat_offer_seconds <= MAX_SEAT_OFFER_SECONDS:
            raise InvalidConfig("seat_offer_seconds", f"must be 1..{MAX_SEAT_OFFER_SECONDS} seconds")
        self._validate_money()
        self._validate_tournament()
        self._validate_time_bank_and_chat()
        self._validate_interrupted_hands()
        self._validate_rotation()
        return self

    def _validate_rotation(self) -> None:
        """§13: no rotation, or two or three different games, the first the table's variant, each played for
        1..MAX_HANDS_PER_GAME hands."""
        hands = self.hands_per_game
        if not isinstance(hands, int) or isinstance(hands, bool) \
                or not 1 <= hands <= MAX_HANDS_PER_GAME:
            raise InvalidConfig("hands_per_game", f"must be 1..{MAX_HANDS_PER_GAME}")
        rotation = self.rotation
        if not isinstance(rotation, tuple) or not all(isinstance(game, Variant) for game in rotation):
            raise InvalidConfig("rotation", f"must be a list of games, each one of {', '.join(Variant)}")
        self._validate_game_stakes()
        if not rotation:
            return
        if not MIN_ROTATION_GAMES <= len(rotation) <= len(Variant) or len(set(rotation)) != len(rotation):
            raise InvalidConfig("rotation", f"must name {MIN_ROTATION_GAMES}..{len(Variant)} different games")
        if rotation[0] is not self.variant:
            raise InvalidConfig("variant", "must be the rotation's first game")

    def _validate_game_stakes(self) -> None:
        """§13: a game of the rotation may have its own stakes, each at most once, each valid as a table's."""
        entries = self.game_stakes
        if not isinstance(entries, tuple) or not all(
                isinstance(entry, tuple) and len(entry) == 1 + len(GAME_STAKES_FIELDS) for entry in entries):
            raise InvalidConfig("game_stakes", "must list (game, ante, bring_in, small_bet, big_bet) entries")
        games = [entry[0] for entry in entries]
        if any(game not in self.rotation for game in games) or len(set(games)) != len(games):
            raise InvalidConfig("game_stakes", "must name each game of the rotation at most once")
        if self.game_stakes and self.tournament:
            raise InvalidConfig("game_stakes", "must be empty at a tournament table: its levels set stakes")
        for entry in self.game_stakes:
            try:
                replace(self.for_game(entry[0]), rotation=(), game_stakes=()).validate()
            except InvalidConfig as error:
                raise InvalidConfig("game_stakes", f"{entry[0]} {error.message}") from None

    def _validate_interrupted_hands(self) -> None:
        """§12: off, or longer than the action clock and the time bank together (§7: a player thinking on
        either is not an interruption)."""
        seconds = self.interrupted_hand_void_seconds
        if seconds == 0:
            return
        thinking = self.action_clock_seconds + self.time_bank_seconds
        if not thinking < seconds <= MAX_INTERRUPTED_HAND_VOID_SECONDS:
            bank = f" + time_bank_seconds ({self.time_bank_seconds})" if self.time_bank_seconds else ""
            raise InvalidConfig(
                "interrupted_hand_void_seconds",
                f"must be 0 (off) or more than action_clock_seconds ({self.action_clock_seconds}){bank},"
                f" at most {MAX_INTERRUPTED_HAND_VOID_SECONDS} seconds")

    def _validate_time_bank_and_chat(self) -> None:
        """§7's time bank: a reserve of 0..600 s, refilled by 1..600 s every 1..1000 hands (or never: both 0);
        the chat's switches are booleans."""
        for field in TIME_BANK_FIELDS:
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidConfig(field, f"must be an integer, got {str(value)[:40]!r}")
        for field in CHAT_FIELDS:
            if not isinstance(getattr(self, field), bool):
                raise InvalidConfig(field, "must be true or false")
        if not 0 <= self.time_bank_seconds <= MAX_TIME_BANK_SECONDS:
            raise InvalidConfig("time_bank_seconds", f"must be 0..{MAX_TIME_BANK_SECONDS} seconds (0: none)")
        if not 0 <= self.time_bank_refill_seconds <= self.time_bank_seconds:
            raise InvalidConfig("time_bank_refill_seconds", "must be 0..time_bank_seconds")
        if not 0 <= self.time_bank_refill_hands <= MAX_TIME_BANK_REFILL_HANDS:
            raise InvalidConfig("time_bank_refill_hands", f"must be 0..{MAX_TIME_BANK_REFILL_HANDS}")
        if (self.time_bank_refill_seconds == 0) != (self.time_bank_refill_hands == 0):
            field = "time_bank_refill_hands" if self.time_bank_refill_seconds else "time_bank_refill_seconds"
            raise InvalidConfig(field, "a refill needs both seconds and hands (or neither)")

    def _validate_tournament(self) -> None:
        """A tournament table (§11): an id, tournament chips (no currency, no rake), a level number."""
        if not isinstance(self.tournament_id, str) or len(self.tournament_id) > MAX_TOURNAMENT_ID_CHARS \
                or not plain_text(self.tournament_id):
            raise InvalidConfig("tournament_id", f"must be text of at most {MAX_TOURNAMENT_ID_CHARS} chars")
        if not 0 <= self.tournament_level <= MAX_TOURNAMENT_LEVEL:
            raise InvalidConfig("tournament_level", f"must be 0..{MAX_TOURNAMENT_LEVEL}")
        if not self.tournament:
            if self.tournament_level:
                raise InvalidConfig("tournament_level", "is for a tournament table only")
            return
        if self.currency != PLAY_CHIPS:
            raise InvalidConfig("currency", "must be empty at a tournament table: its chips are not money")
        if self.rake_basis_points:
            raise InvalidConfig("rake_basis_points", "must be 0 at a tournament table: it has a fee")

    def _validate_money(self) -> None:
        """The currency and the rake rule (§10)."""
        if self.currency != PLAY_CHIPS and not is_currency(self.currency):
            raise InvalidConfig("currency", "must be an ISO 4217 currency code such as USD, EUR or JPY")
        if not 0 <= self.rake_basis_points <= MAX_RAKE_BASIS_POINTS:
            raise InvalidConfig("rake_basis_points", f"must be 0..{MAX_RAKE_BASIS_POINTS} (0% to 10%)")
        for field in RAKE_CAP_FIELDS:
            cap = getattr(self, field)
            if not 0 <= cap <= MAX_CHIPS:
                raise InvalidConfig(field, f"must be 0..{MAX_CHIPS:,}")
            if cap == 0 and self.rake_basis_points > 0:
                raise InvalidConfig(field, "must be at least 1 when the table takes rake")


def plain_text(text: str) -> bool:
    """No control characters (NUL above all: the log cannot store it) and no lone surrogates."""
    return not any(unicodedata.category(char) in ("Cc", "Cs") for char in text)


def config_to_json(config: TableConfig) -> dict[str, Any]:
    """Every field, but the tournament's only when set and the options of ``OPTIONAL_FIELDS`` only when on: a
    cash table's JSON is as it always was, so its events stay readable by code written before them."""
    out = {f.name: (str(v) if isinstance(v := getattr(config, f.name), enum.Enum) else v)
           for f in fields(config)}
    out["rotation"] = [str(game) for game in config.rotation]
    out["game_stakes"] = [{"game": str(entry[0]), **dict(zip(GAME_STAKES_FIELDS, entry[1:], strict=True))}
                          for entry in config.game_stakes]
    if not config.tournament_id and not config.tournament_level:
        for name in TOURNAMENT_FIELDS:
            del out[name]
    for name, default in OPTIONAL_FIELDS.items():
        if out[name] == default:
            del out[name]
    return out


def config_from_json(data: dict[str, Any]) -> TableConfig:
    """Build a config from JSON; unknown keys are an error, missing keys take defaults, except the
    currency: a config without one was written before money existed and plays for chips ("")."""
    known = {f.name for f in fields(TableConfig)}
    unknown = set(data) - known
    if unknown:
        raise InvalidConfig(sorted(unknown)[0], "is not a table config field")
    values = dict(data)
    values.setdefault("currency", PLAY_CHIPS)
    try:
        if "variant" in values:
            values["variant"] = Variant(values["variant"])
    except ValueError:
        raise InvalidConfig("variant", f"must be one of {', '.join(Variant)}") from None
    try:
        if "bring_in_tiebreak" in values:
            values["bring_in_tiebreak"] = BringInTiebreak(values["bring_in_tiebreak"])
    except ValueError:
        raise InvalidConfig("bring_in_tiebreak", f"must be one of {', '.join(BringInTiebreak)}") from None
    try:
        if "same_network" in values:
            values["same_network"] = SameNetworkRule(values["same_network"])
    except ValueError:
        raise InvalidConfig("same_network", f"must be one of {', '.join(SameNetworkRule)}") from None
    try:
        if "rotation" in values:
            values["rotation"] = tuple(Variant(game) for game in values["rotation"])
    except (ValueError, TypeError):
        raise InvalidConfig("rotation", f"must be a list of games, each one of {', '.join(Variant)}") \
            from None
    if "game_stakes" in values:
        values["game_stakes"] = _game_stakes_from_json(values["game_stakes"])
    return TableConfig(**values)


def _game_stakes_from_json(data: Any) -> tuple[GameStakes, ...]:
    """``[{"game", "ante", "bring_in", "small_bet", "big_bet"}, ...]`` as the config holds them."""
    try:
        return tuple((Variant(entry["game"]), *(entry[name] for name in GAME_STAKES_FIELDS))
                     for entry in data)
    except (ValueError, TypeError, KeyError):
        raise InvalidConfig("game_stakes", "must list {game, ante, bring_in, small_bet, big_bet} entries,"
                            f" each game one of {', '.join(Variant)}") from None
