"""Betting rules (RULES.md §3, §4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from stud_service.cards import rank_of
from stud_service.engine.config import TableConfig, Variant

MAX_BETS_PER_ROUND: Final = 4  # one bet (or completion) and three raises


def bet_size_for_street(config: TableConfig, street: int) -> int:
    """§4: third and fourth street use the small bet, fifth to seventh the big bet."""
    return config.small_bet if street <= 4 else config.big_bet


def open_pair_on_fourth_street(game: Variant, street: int, boards: Iterable[Sequence[int]]) -> bool:
    """§4: on fourth street (not Razz: the hand's game, §13) a pair showing on any live board lets the opener
    bet S or B."""
    if street != 4 or game is Variant.RAZZ:
        return False
    return any(len(up) >= 2 and rank_of(up[0]) == rank_of(up[1]) for up in boards)


def opening_bet_sizes(config: TableConfig, street: int, open_pair: bool) -> tuple[int, ...]:
    """§4: the amounts the first bet of a round may be."""
    if open_pair:
        return (config.small_bet, config.big_bet)
    return (bet_size_for_street(config, street),)


def raise_size_after_bet(config: TableConfig, street: int, bet: int) -> int:
    """§4: raises are the street's size, except that a big bet on fourth street fixes big raises."""
    if street == 4 and bet >= config.big_bet:
        return config.big_bet
    return bet_size_for_street(config, street)


def raise_cap_reached(n_bets: int, uncapped: bool) -> bool:
    """§4: at most four bets per round (bet or completion + three raises), unless uncapped heads-up."""
    return not uncapped and n_bets >= MAX_BETS_PER_ROUND


def uncapped_heads_up_round(config: TableConfig, live_players: int) -> bool:
    """§4: no cap when only two players are left at the start of the round and the option is on."""
    return config.uncapped_heads_up and live_players == 2


def may_reraise(acted_level: int | None, full_level: int) -> bool:
    """§4: a short all-in raise does not reopen the betting: a player who already acted may raise
    again only if a full bet or raise came after their action."""
    return acted_level is None or full_level > acted_level


def betting_round_needed(players_who_can_act: int) -> bool:
    """§4: a round is played only if two or more players can still bet; otherwise the cards are
    run out with no more betting."""
    return players_who_can_act >= 2
