"""Rake: the house's fee, taken from the pots before they are awarded (RULES.md §10).

Integer arithmetic only: amounts are in the currency's smallest unit and the rate in basis points.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from stud_service.engine.config import TableConfig

BASIS_POINTS = 10_000  # 100%


def rake_cap_for_players(config: TableConfig, dealt_in: int) -> int:
    """§10: the cap per hand depends on how many players were dealt in: one for 2, one for 3 or 4,
    one for 5 or more."""
    if dealt_in <= 2:
        return config.rake_cap_2
    if dealt_in <= 4:
        return config.rake_cap_3_4
    return config.rake_cap_5_plus


def round_half_to_even(numerator: int, denominator: int) -> int:
    """§10: ``numerator / denominator`` rounded to a whole unit, halves to even (both non-negative)."""
    quotient, remainder = divmod(numerator, denominator)
    twice = 2 * remainder
    if twice > denominator or (twice == denominator and quotient % 2 == 1):
        quotient += 1
    return quotient


def rake_for_hand(config: TableConfig, total: int, dealt_in: int, fourth_street_dealt: bool) -> int:
    """§10: the hand's rake, computed once on the total of all its pots (uncalled bets returned):
    min(cap, total x rate / 10,000 rounded half to even).  No fourth street, no drop: a hand that ends
    before any fourth-street card is dealt pays none."""
    rate = config.rake_basis_points
    if rate == 0 or not fourth_street_dealt or total <= 0:
        return 0
    return min(rake_cap_for_players(config, dealt_in), round_half_to_even(total * rate, BASIS_POINTS))


def take_rake_from_pots(pots: Sequence[int], rake: int) -> list[int]:
    """§10: what the rake takes from each pot (amounts main pot first, then the side pots in the order
    they were formed): the main pot first, then the side pots in order, never more than a pot holds."""
    taken = []
    due = rake
    for amount in pots:
        part = min(due, amount)
        taken.append(part)
        due -= part
    if due:
        raise ValueError(f"a rake of {rake} is more than the pots hold ({sum(pots)})")
    return taken


def contributed_rake_shares(committed: Mapping[int, int], rake: int) -> tuple[tuple[int, int], ...]:
    """§10: each player's contributed rake: the rake shared in proportion to the chips each seat put
    into the pots, by largest remainder so that the shares add up to the rake exactly; equal
    remainders go to the lowest seat.  ((seat, share), ...) ascending by seat, shares > 0 only."""
    total = sum(committed.values())
    if rake <= 0 or total <= 0:
        return ()
    shares: dict[int, int] = {}
    remainders: list[tuple[int, int]] = []  # (-remainder, seat): sorts largest remainder, lowest seat first
    for seat, chips in committed.items():
        share, remainder = divmod(rake * chips, total)
        shares[seat] = share
        remainders.append((-remainder, seat))
    left = rake - sum(shares.values())
    for _negative, seat in sorted(remainders)[:left]:
        shares[seat] += 1
    return tuple((seat, share) for seat, share in sorted(shares.items()) if share > 0)
