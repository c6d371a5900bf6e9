"""Mixed games (RULES.md §13) in the API: a table's rotation in and out of ``stud.v1.Table``, the game it
plays now (``CurrentGame``), each hand's game, and the ``GameChanged`` event."""

from __future__ import annotations

from typing import Any

from stud_service.engine.config import GameStakes, TableConfig, Variant
from stud_service.engine.events import started_game
from stud_service.engine.rules.rotation import game_of_next_hand, hands_left_in_game
from stud_service.engine.state import TableState
from stud_service.server.api.errors import malformed
from stud_service.server.proto_gen import table_pb2

VARIANTS = {
    table_pb2.VARIANT_SEVEN_CARD_STUD: Variant.STUD,
    table_pb2.VARIANT_STUD_HI_LO: Variant.STUD_HI_LO,
    table_pb2.VARIANT_RAZZ: Variant.RAZZ,
}
VARIANT_PROTOS = {engine: proto for proto, engine in VARIANTS.items()}


def rotation_values(rotation: Any, hands_per_game: int, variant: int, prefix: str) -> dict[str, Any]:
    """The TableConfig values a request's ``rotation`` and ``hands_per_game`` give (``prefix``: where the
    request holds them, "table." or "tournament."): none without a rotation; with one, the variant is its
    first game unless the request set it."""
    values: dict[str, Any] = {}
    if hands_per_game:
        values["hands_per_game"] = hands_per_game
    if not rotation:
        return values
    if any(game not in VARIANTS for game in rotation):
        raise malformed(f"unknown game in rotation {list(rotation)}", f"{prefix}rotation")
    values["rotation"] = tuple(VARIANTS[game] for game in rotation)
    if variant == table_pb2.VARIANT_UNSPECIFIED:
        values["variant"] = values["rotation"][0]
    return values


def mixed_config_values(table: table_pb2.Table) -> dict[str, Any]:
    """CreateTable's rotation, hands per game and per-game stakes as TableConfig values."""
    values = rotation_values(table.rotation, table.hands_per_game, table.variant, "table.")
    stakes: list[GameStakes] = []
    for entry in table.game_stakes:
        if entry.game not in VARIANTS:
            raise malformed(f"unknown game {entry.game} in game_stakes", "table.game_stakes")
        own = entry.stakes
        stakes.append((VARIANTS[entry.game], own.ante, own.bring_in, own.small_bet, own.big_bet))
    if stakes:
        values["game_stakes"] = tuple(stakes)
    return values


def stakes_proto(config: TableConfig) -> table_pb2.Stakes:
    return table_pb2.Stakes(small_bet=config.small_bet, big_bet=config.big_bet, ante=config.ante,
                            bring_in=config.bring_in)


def add_rotation(table: table_pb2.Table, config: TableConfig) -> None:
    """The rotation fixed at creation, on a ``Table`` being built from ``config``."""
    table.hands_per_game = config.hands_per_game
    table.rotation.extend(VARIANT_PROTOS[game] for game in config.rotation)
    for game, ante, bring_in, small_bet, big_bet in config.game_stakes:
        table.game_stakes.add(game=VARIANT_PROTOS[game], stakes=table_pb2.Stakes(
            small_bet=small_bet, big_bet=big_bet, ante=ante, bring_in=bring_in))


def current_game(state: TableState) -> Variant:
    """The game of the running hand, or between hands of the next one."""
    assert state.config is not None
    return state.hand.game if state.hand is not None else game_of_next_hand(state.config,
                                                                             state.rotation_hands)


def current_game_proto(state: TableState) -> table_pb2.CurrentGame:
    """§13: what the table plays now, how many hands of it remain, what comes next, at what stakes."""
    config = state.config
    assert config is not None
    game = current_game(state)
    out = table_pb2.CurrentGame(game=VARIANT_PROTOS[game], stakes=stakes_proto(config.for_game(game)))
    if config.mixed:
        left = hands_left_in_game(config, state.rotation_hands)
        out.hands_left = left
        out.next_game = VARIANT_PROTOS[game_of_next_hand(config, state.rotation_hands + left)]
    return out


def last_hand_game(state: TableState, voided: bool) -> Variant:
    """The game of the table's last hand, once it has ended: a voided one did not count, so it was the game
    of the hand to come; any other was counted last."""
    assert state.config is not None
    return game_of_next_hand(state.config, state.rotation_hands - (0 if voided else 1))


def hand_started_game(data: dict[str, Any]) -> int:
    """HandStarted's game as the message has it: the one logged, or (logs from before mixed tables) the
    variant of the config the hand was dealt with."""
    return VARIANT_PROTOS[Variant(started_game(data))]


def game_changed(target: Any, data: dict[str, Any]) -> None:
    """The ``GameChanged`` message of the engine's event."""
    target.after_hand = data["after_hand"]
    target.game = VARIANT_PROTOS[Variant(data["game"])]
    target.hands = data["hands"]
    target.time.FromMilliseconds(data["at_ms"])
