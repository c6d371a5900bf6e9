"""Waiting-list rules: who may wait, and who is offered a freed seat for how long (docs/waiting-list.md)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

# The longest a waiting list grows: each entry is a player, and a list nobody can reach the end of
# helps no one.
MAX_WAITING: Final = 50

Offer = tuple[str, int, int]  # (player_id, seat, deadline_ms)


def open_seats(seat_count: int, taken: Iterable[int], offers: Sequence[Offer]) -> list[int]:
    """Waiting list: the seats a newcomer may take now: neither taken nor held for a waiting player."""
    closed = set(taken) | {seat for _, seat, _ in offers}
    return [seat for seat in range(1, seat_count + 1) if seat not in closed]


def may_join_waiting_list(open_seat_count: int) -> bool:
    """Waiting list: a player waits only when no seat is open to them (a seat on offer to another is not)."""
    return open_seat_count == 0


def seat_offers_to_make(waiting: Sequence[str], offers: Sequence[Offer], free: Sequence[int]) -> list[
        tuple[str, int]]:
    """Waiting list: each open seat, lowest first, goes to the first player waiting who holds no offer yet."""
    offered = {player for player, _, _ in offers}
    next_in_line = [player for player in waiting if player not in offered]
    return list(zip(next_in_line, free, strict=False))


def seat_offer_deadline(now_ms: int, seat_offer_seconds: int) -> int:
    """Waiting list: an offer holds the seat for the table's ``seat_offer_seconds`` from when it is made."""
    return now_ms + seat_offer_seconds * 1000


def expired_seat_offers(offers: Sequence[Offer], now_ms: int) -> list[Offer]:
    """Waiting list: offers whose deadline has come; each passes its seat on to the next player waiting."""
    return [offer for offer in offers if offer[2] <= now_ms]


def offered_seat(offers: Sequence[Offer], player_id: str) -> int | None:
    """Waiting list: the seat held for ``player_id``, or None."""
    return next((seat for player, seat, _ in offers if player == player_id), None)


def seat_held_for_another(offers: Sequence[Offer], seat: int, player_id: str) -> bool:
    """Waiting list: while a seat is on offer, only the player it is offered to may take it."""
    return any(held == seat and player != player_id for player, held, _ in offers)
