"""RULES.md §7's time bank, rule by rule: each function of stud_service.engine.rules.time_bank, and the
reserve's bounds as properties (never negative, never above its maximum, only what is used is spent)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from stud_service.engine.rules.time_bank import (
    time_bank_after_use,
    time_bank_deadline,
    time_bank_maximum_ms,
    time_bank_on_sitting_down,
    time_bank_refill,
    time_bank_refill_due,
    time_bank_spent,
    time_bank_starts,
)

MAXIMUM_SECONDS = st.integers(0, 600)


def test_time_bank_maximum_ms() -> None:
    """§7: the reserve's maximum is the table's time_bank_seconds (up to 600), in milliseconds."""
    assert time_bank_maximum_ms(90) == 90_000
    assert time_bank_maximum_ms(0) == 0


def test_time_bank_on_sitting_down() -> None:
    """§7: each seated player holds a reserve: a full one from the moment they sit down."""
    assert time_bank_on_sitting_down(60) == 60_000


def test_time_bank_starts() -> None:
    """§7: when the action clock runs out the reserve starts running, if there is one not running yet."""
    assert time_bank_starts(1, running=False)
    assert not time_bank_starts(0, running=False)
    assert not time_bank_starts(5_000, running=True)


def test_time_bank_deadline() -> None:
    """§7: the reserve runs from the action clock's end for as long as it holds."""
    assert time_bank_deadline(30_000, 60_000) == 90_000


def test_time_bank_spent() -> None:
    """§7: only what is used is spent: nothing in time, the time over the clock, at most all of it."""
    assert time_bank_spent(30_000, 29_999, 60_000) == 0
    assert time_bank_spent(30_000, 30_000, 60_000) == 0
    assert time_bank_spent(30_000, 41_500, 60_000) == 11_500
    assert time_bank_spent(30_000, 500_000, 60_000) == 60_000


def test_time_bank_after_use() -> None:
    assert time_bank_after_use(60_000, 11_500) == 48_500
    assert time_bank_after_use(60_000, 60_000) == 0


def test_time_bank_refill_due() -> None:
    """§7: the reserve grows after every time_bank_refill_hands hands the player was dealt (0: never)."""
    assert [time_bank_refill_due(hands, 3) for hands in range(7)] == [
        False, False, False, True, False, False, True]
    assert not time_bank_refill_due(10, 0)


def test_time_bank_refill() -> None:
    """§7: by time_bank_refill_seconds, up to its maximum."""
    assert time_bank_refill(20_000, 10_000, 60_000) == 10_000
    assert time_bank_refill(55_000, 10_000, 60_000) == 5_000
    assert time_bank_refill(60_000, 10_000, 60_000) == 0


@given(maximum=MAXIMUM_SECONDS, steps=st.lists(st.tuples(
    st.sampled_from(["use", "refill"]), st.integers(-10**7, 10**9), st.integers(0, 10**7)), max_size=60))
def test_a_bank_is_never_negative_and_never_above_its_maximum(
    maximum: int, steps: list[tuple[str, int, int]]
) -> None:
    """Any sequence of decisions (at any time, even before the clock's end) and refills (of any size)
    keeps the reserve within 0..maximum, and a decision spends exactly what it used, never more."""
    top = time_bank_maximum_ms(maximum)
    reserve = time_bank_on_sitting_down(maximum)
    for kind, at, amount in steps:
        if kind == "use":
            end = 1_000_000
            spent = time_bank_spent(end, end + at, reserve)
            assert 0 <= spent <= reserve
            assert spent == (min(at, reserve) if at > 0 else 0)
            reserve = time_bank_after_use(reserve, spent)
        else:
            added = time_bank_refill(reserve, amount, top)
            assert 0 <= added <= amount
            reserve += added
        assert 0 <= reserve <= top


@given(reserve=st.integers(0, 600_000), end=st.integers(0, 10**13), late=st.integers(0, 10**7))
def test_what_a_decision_leaves_is_the_time_to_the_deadline(reserve: int, end: int, late: int) -> None:
    """A decision before the reserve's deadline leaves what is left of it; at or after it, nothing."""
    deadline = time_bank_deadline(end, reserve)
    left = time_bank_after_use(reserve, time_bank_spent(end, end + late, reserve))
    assert left == max(0, deadline - (end + late))
