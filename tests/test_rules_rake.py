"""Rake (RULES.md §10): each rule function under the name of its rule, the engine's hands that apply
them, and property tests over random raked play."""

from __future__ import annotations

from dataclasses import replace

import pytest
from engine_helpers import Table, deal_sequence, deal_table, of_type, play_passively, stacked_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.audit.simulate import simulate_table
from stud_service.currency import format_amount, is_currency, minor_units
from stud_service.engine import (
    CreateTable,
    HandEnded,
    InvalidConfig,
    PlayerLeft,
    PlayerSeated,
    PlayerToppedUp,
    TableConfig,
    Variant,
    chips_in_play,
    decide,
    event_from_json,
    event_to_json,
    evolve,
    initial_state,
)
from stud_service.engine.config import config_from_json, config_to_json
from stud_service.engine.rules.rake import (
    contributed_rake_shares,
    rake_cap_for_players,
    rake_for_hand,
    round_half_to_even,
    take_rake_from_pots,
)

# 5% with caps of 10, 20 and 30 units.
RAKED = TableConfig(min_buy_in=1, rake_basis_points=500, rake_cap_2=10, rake_cap_3_4=20, rake_cap_5_plus=30)


# --- the rule functions -------------------------------------------------------------------------

def test_rake_cap_for_players_by_players_dealt_in() -> None:
    """§10: one cap for 2 players, one for 3 or 4, one for 5 or more."""
    assert rake_cap_for_players(RAKED, 2) == 10
    assert [rake_cap_for_players(RAKED, n) for n in (3, 4)] == [20, 20]
    assert [rake_cap_for_players(RAKED, n) for n in (5, 6, 7, 8)] == [30] * 4


def test_rake_for_hand_is_the_rate_of_the_total_up_to_the_cap() -> None:
    """§10: rake = min(cap, total x rate / 10,000)."""
    assert rake_for_hand(RAKED, 100, 2, True) == 5
    assert rake_for_hand(RAKED, 1_000, 2, True) == 10  # capped at 10 for two players
    assert rake_for_hand(RAKED, 1_000, 3, True) == 20
    assert rake_for_hand(RAKED, 1_000, 8, True) == 30


def test_rake_for_hand_rounds_half_to_even() -> None:
    """§10: rounded to a whole unit, halves to even: 5% of 50 is 2.5 -> 2, of 70 is 3.5 -> 4."""
    assert rake_for_hand(RAKED, 50, 5, True) == 2
    assert rake_for_hand(RAKED, 70, 5, True) == 4
    assert rake_for_hand(RAKED, 51, 5, True) == 3  # 2.55 -> 3
    assert rake_for_hand(RAKED, 49, 5, True) == 2  # 2.45 -> 2
    assert [round_half_to_even(n, 2) for n in (1, 3, 5, 7)] == [0, 2, 2, 4]


def test_rake_for_hand_no_fourth_street_no_drop() -> None:
    """§10: a hand that ends before any fourth-street card is dealt pays no rake."""
    assert rake_for_hand(RAKED, 1_000, 8, False) == 0


def test_rake_for_hand_no_rate_no_rake() -> None:
    """§10: a rate of 0 means no rake (the default)."""
    assert rake_for_hand(TableConfig(), 10**6, 8, True) == 0


def test_take_rake_from_pots_main_pot_first_never_more_than_a_pot_holds() -> None:
    """§10: from the main pot first, then the side pots in the order they were formed."""
    assert take_rake_from_pots([30, 50, 20], 40) == [30, 10, 0]
    assert take_rake_from_pots([30, 50, 20], 5) == [5, 0, 0]
    assert take_rake_from_pots([30, 50, 20], 100) == [30, 50, 20]
    with pytest.raises(ValueError):
        take_rake_from_pots([30], 31)


def test_contributed_rake_shares_by_largest_remainder() -> None:
    """§10: shares in proportion to the chips put in, adding up to the rake exactly."""
    # 10 of rake over 100, 200, 400: quotas 1.43, 2.86, 5.71 -> 1, 2, 5 and the unit left to 2.86.
    assert contributed_rake_shares({1: 100, 2: 200, 3: 400}, 10) == ((1, 1), (2, 3), (3, 6))
    assert contributed_rake_shares({1: 500, 2: 500}, 0) == ()


def test_contributed_rake_shares_equal_remainders_to_the_lowest_seat() -> None:
    """§10: equal remainders go to the lowest seat; seats with no share are left out."""
    assert contributed_rake_shares({5: 100, 2: 100, 7: 100}, 1) == ((2, 1),)
    assert contributed_rake_shares({5: 100, 2: 100, 7: 100}, 2) == ((2, 1), (5, 1))


# --- the config -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("changes", "field"), [
    ({"currency": "usd"}, "currency"),
    ({"currency": "XXX"}, "currency"),
    ({"rake_basis_points": -1}, "rake_basis_points"),
    ({"rake_basis_points": 1001}, "rake_basis_points"),
    ({"rake_basis_points": 100, "rake_cap_2": 0, "rake_cap_3_4": 1, "rake_cap_5_plus": 1}, "rake_cap_2"),
    ({"rake_basis_points": 100, "rake_cap_2": 1, "rake_cap_3_4": 0, "rake_cap_5_plus": 1}, "rake_cap_3_4"),
    ({"rake_basis_points": 100, "rake_cap_2": 1, "rake_cap_3_4": 1, "rake_cap_5_plus": 0}, "rake_cap_5_plus"),
    ({"rake_cap_2": 10**12 + 1}, "rake_cap_2"),
    ({"rake_cap_3_4": -1}, "rake_cap_3_4"),
    ({"rake_basis_points": True}, "rake_basis_points"),
])
def test_rake_rule_bounds_name_the_field(changes: dict, field: str) -> None:
    """§10: a rate of 0..1000 basis points; every cap at least 1 when the rate is above 0."""
    with pytest.raises(InvalidConfig) as refused:
        TableConfig(**changes).validate()
    assert refused.value.field == field


def test_a_config_without_a_currency_is_a_play_chip_table_that_still_loads() -> None:
    """A table created before money existed: its config (no ``currency``) decodes with "" (play money),
    validates, and replays; a new table may be play money too, and any other currency must be ISO 4217."""
    legacy = {k: v for k, v in config_to_json(TableConfig()).items() if k not in (
        "currency", "rake_basis_points", "rake_cap_2", "rake_cap_3_4", "rake_cap_5_plus")}
    config = config_from_json(legacy)
    assert config.currency == "" and config.validate() is config
    assert config_from_json(config_to_json(TableConfig())).currency == "USD"
    assert decide(initial_state(), CreateTable("t", config, 0))[0].config.currency == ""
    with pytest.raises(InvalidConfig) as refused:
        decide(initial_state(), CreateTable("t", replace(config, currency="usd"), 0))
    assert refused.value.field == "currency"


def test_currencies_have_their_iso_4217_minor_units() -> None:
    assert [minor_units(code) for code in ("USD", "JPY", "KWD", "EUR", "CLF")] == [2, 0, 3, 2, 4]
    assert is_currency("USD") and not is_currency("usd") and not is_currency("XAU") and not is_currency(1)
    assert [format_amount(40, "USD"), format_amount(1234, "JPY"), format_amount(1005, "KWD")] == \
        ["0.40", "1234", "1.005"]


# --- hands --------------------------------------------------------------------------------------

def _winner_takes_fourth_street(config: TableConfig) -> Table:
    """Seat 1 (aces) bets fourth street, seat 2 folds: pot = antes 100 + bring-in/call 200 + bet 200."""
    table = deal_table({1: "Ac Ad 2h 9s", 2: "3c 4d Kh 8s"}, config=config)
    play_passively(table, fold=[2])
    return table


def test_a_hand_won_uncontested_after_fourth_street_is_raked() -> None:
    """§10: the last player left wins the pot less the rake; the rake leaves the table."""
    table = deal_table({1: "Ac Ad 2h 9s", 2: "3c 4d Kh 8s"}, config=RAKED)
    before = chips_in_play(table.state)
    play_passively(table, fold=[2])
    ended = of_type(table.log, "HandEnded")[-1]
    total = ended.pots[0]["amount"]
    assert ended.rake == min(10, round(total * 0.05)) > 0
    assert ended.pots[0]["rake"] == ended.rake
    assert sum(award["amount"] for award in ended.pots[0]["awards"]) == total - ended.rake
    assert sum(share for _seat, share in ended.rake_shares) == ended.rake
    assert table.state.rake_taken == ended.rake
    assert chips_in_play(table.state) + table.state.rake_taken == before


def test_a_hand_ended_on_third_street_pays_no_rake() -> None:
    """§10: no fourth street, no drop."""
    table = deal_table({1: "Ac Ad 2h", 2: "3c 4d Kh"}, config=RAKED)  # the deuce brings in
    events = table.act(1, "BRING_IN", RAKED.bring_in)
    events += table.act(2, "FOLD")
    ended = of_type(events, "HandEnded")[-1]
    assert ended.rake == 0 and ended.rake_shares == () and ended.pots[0]["rake"] == 0
    assert table.state.rake_taken == 0


def test_a_showdown_is_raked_from_the_main_pot_first() -> None:
    """§10: a short all-in makes a side pot; the rake comes from the main pot before the side pot."""
    config = TableConfig(min_buy_in=1, ante=0, rake_basis_points=1000, rake_cap_2=500, rake_cap_3_4=500,
                         rake_cap_5_plus=500)
    hands = {1: "2c 3c 4c 5d 6d 7h 8h", 2: "Ac Ad Ah As Kc Kd Kh", 3: "Qc Qd Qh Qs Jc Jd Jh"}
    table = Table(config, stacks={1: 150, 2: 10_000, 3: 10_000})
    table.start(stacked_deck(deal_sequence([1, 2, 3], hands)))
    table.act(1, "BRING_IN", 100)  # the 4c door brings in
    table.act(2, "COMPLETE", 200)
    table.act(3, "CALL")
    table.act(1, "CALL")  # all-in for 150: a main pot of 450, a side pot of 100
    play_passively(table)
    ended = of_type(table.log, "HandEnded")[-1]
    pots = sorted(ended.pots, key=lambda pot: pot["pot"])
    assert [(p["amount"], p["rake"]) for p in pots] == [(450, 55), (100, 0)]  # 10% of 550
    assert ended.rake == 55
    for pot in pots:
        assert sum(award["amount"] for award in pot["awards"]) == pot["amount"] - pot["rake"]


def test_a_hi_lo_pot_is_split_after_its_rake_is_taken() -> None:
    """§10: a Stud Hi-Lo pot is split into its halves after its share of the rake is taken."""
    config = TableConfig(variant=Variant.STUD_HI_LO, min_buy_in=1, ante=0, rake_basis_points=1000,
                         rake_cap_2=7, rake_cap_3_4=7, rake_cap_5_plus=7)
    table = deal_table({1: "Ac 2c 3d 4d 5h Kh Ks", 2: "Kc Kd Qh Qs Jc 9h 9s"}, config=config)
    play_passively(table)
    ended = of_type(table.log, "HandEnded")[-1]
    (pot,) = ended.pots
    halves = {award["half"]: award["amount"] for award in pot["awards"]}
    assert ended.rake == 7
    left = pot["amount"] - 7
    assert halves == {"high": left - left // 2, "low": left // 2}


def test_hand_ended_v2_without_rake_decodes_with_rake_zero() -> None:
    """A HandEnded logged before the rake (v2) reads as rake 0, no shares."""
    data = event_to_json(HandEnded(1, ({"pot": 0, "amount": 10, "eligible": (1,), "awards": ()},), (), (),
                                   ((1, 10),), 5, "ab"))
    old = {k: v for k, v in data.items() if k not in ("rake", "rake_shares")} | {"v": 2}
    decoded = event_from_json(old)
    assert decoded.rake == 0 and decoded.rake_shares == ()
    assert data["v"] == 3 and data["rake"] == 0


def test_rake_leaves_the_table_in_the_state_and_its_snapshot() -> None:
    from stud_service.engine import state_from_json, state_to_json

    table = _winner_takes_fourth_street(RAKED)
    assert table.state.rake_taken > 0
    assert state_from_json(state_to_json(table.state)).rake_taken == table.state.rake_taken


# --- properties over random raked play ------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), variant=st.sampled_from(list(Variant)))
def test_random_raked_play_keeps_the_rake_rules(seed: int, variant: Variant) -> None:
    """§10 over random legal play (all-ins, side pots, timeouts, leaving, top-ups): the rake never
    exceeds the cap or the pots, is zero when the hand ends on third street, the shares add up to it,
    and stacks + chips in the hand + rake taken is what was brought to the table less what left."""
    table = simulate_table("t", variant, hands=6, seed=seed, raked=True)
    config = table.config
    state = initial_state()
    bank = 0
    dealt_in = 0
    fourth = False
    for events in table.commands:
        for event in events:
            state = evolve(state, event)
            name = type(event).__name__
            if isinstance(event, PlayerSeated):
                bank += event.buy_in
            elif isinstance(event, PlayerToppedUp):
                bank += event.amount
            elif isinstance(event, PlayerLeft):
                bank -= event.cash_out
            elif name == "HandStarted":
                dealt_in, fourth = len(event.seats), False
            elif name == "CardDealt" and event.street >= 4:
                fourth = True
            elif isinstance(event, HandEnded):
                total = sum(pot["amount"] for pot in event.pots)
                assert 0 <= event.rake <= rake_cap_for_players(config, dealt_in)
                assert event.rake <= total
                assert event.rake == sum(pot["rake"] for pot in event.pots)
                assert all(0 <= pot["rake"] <= pot["amount"] for pot in event.pots)
                if not fourth:
                    assert event.rake == 0
                assert sum(share for _seat, share in event.rake_shares) == event.rake
                assert all(share > 0 for _seat, share in event.rake_shares)
            assert chips_in_play(state) + state.rake_taken == bank, f"chips not conserved at {event}"
    assert state.rake_taken == sum(
        e.rake for events in table.commands for e in events if isinstance(e, HandEnded))
