"""RULES.md §13, Mixed games, in the pure core: the rotation in the table's config, the game of each hand
decided from the log (hands that reached their end; a voided hand does not count), and everything a hand
does following the game it was dealt in."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import pytest
from engine_helpers import COMMITMENT, Table, deal_sequence, of_type, play_passively, stacked_deck
from hypothesis import given, settings
from hypothesis import strategies as st

from stud_service.engine import (
    HandStarted,
    InvalidConfig,
    StartHand,
    TableConfig,
    Variant,
    VoidHand,
    decide,
    event_from_json,
    event_to_json,
    hands_left_in_current_game,
    legal_actions,
    next_game,
    replay,
    state_from_json,
    state_to_json,
    to_act,
)
from stud_service.engine.config import config_from_json, config_to_json
from stud_service.engine.rules.rake import rake_for_hand
from stud_service.engine.rules.rotation import game_of_next_hand, hands_left_in_game

STUD, HI_LO, RAZZ = Variant.STUD, Variant.STUD_HI_LO, Variant.RAZZ
# Seat 1 holds a seven-low (and a pair of kings), seat 2 two pair without a low: Stud and the high half go to
# seat 2, Razz and the low half to seat 1.  Door cards 3h and 9h: seat 1 brings in at Stud, seat 2 at Razz.
SHOWDOWN_DECK = stacked_deck(deal_sequence([1, 2], {1: "Ac 2d 3h 4s 7c Kd Kh", 2: "Qc Qd 9h 9s Jc Jd 5h"}))
ANY_DECK = stacked_deck([])


def mixed_table(rotation: tuple[Variant, ...], hands_per_game: int, **options: Any) -> Table:
    config = TableConfig(variant=rotation[0], rotation=rotation, hands_per_game=hands_per_game, min_buy_in=1,
                         max_buy_in=10**9, **options)
    return Table(config, stacks={1: 10**8, 2: 10**8})


def fold_hand(table: Table) -> None:
    """Deal a hand and end it at once: the bring-in is posted, the other player folds."""
    table.start(ANY_DECK)
    while (seat := to_act(table.state)) is not None:
        kinds = {str(kind) for kind, _ in legal_actions(table.state, table.pid(seat)).options}
        if "BRING_IN" in kinds:
            table.act(seat, "BRING_IN", table.config.bring_in)
        else:
            table.act(seat, "FOLD")


def void_hand(table: Table) -> None:
    """Deal a hand and have an operator void it (RULES.md §12)."""
    table.start(ANY_DECK)
    table.run(VoidHand(table.state.hand.number, "ops", "a fault", table.now))


def games_dealt(table: Table) -> list[Variant]:
    return [event.game for event in of_type(table.log, "HandStarted")]


# --- the rotation in the config ------------------------------------------------------------------------

def test_a_rotation_is_two_or_three_different_games_for_1_to_100_hands_each() -> None:
    """§13: the games are chosen from Stud, Stud Hi-Lo and Razz, each for ``hands_per_game`` hands (default
    8); a bad rotation is refused naming the field."""
    assert TableConfig().hands_per_game == 8 and not TableConfig().mixed
    TableConfig(variant=RAZZ, rotation=(RAZZ, STUD, HI_LO)).validate()
    TableConfig(rotation=(STUD, RAZZ), hands_per_game=1).validate()
    TableConfig(rotation=(STUD, RAZZ), hands_per_game=100).validate()
    refused = {
        "rotation": [dict(rotation=(STUD,)), dict(rotation=(STUD, STUD)), dict(rotation=(STUD, RAZZ, STUD)),
                     dict(rotation=(STUD, RAZZ, HI_LO, STUD)), dict(rotation=("STUD", "RAZZ")),
                     dict(rotation=[STUD, RAZZ])],
        "variant": [dict(variant=RAZZ, rotation=(STUD, RAZZ))],
        "hands_per_game": [dict(rotation=(STUD, RAZZ), hands_per_game=0),
                           dict(rotation=(STUD, RAZZ), hands_per_game=101),
                           dict(rotation=(STUD, RAZZ), hands_per_game=True), dict(hands_per_game=0)],
    }
    for field, configs in refused.items():
        for values in configs:
            with pytest.raises(InvalidConfig) as refusal:
                TableConfig(**values).validate()
            assert refusal.value.field == field, values


def test_the_rotation_is_kept_in_json_and_a_single_game_tables_json_is_unchanged() -> None:
    mixed = TableConfig(variant=RAZZ, rotation=(RAZZ, STUD, HI_LO), hands_per_game=6)
    data = config_to_json(mixed)
    assert (data["rotation"], data["hands_per_game"]) == (["RAZZ", "STUD", "STUD_HI_LO"], 6)
    assert config_from_json(data) == mixed
    assert not {"rotation", "hands_per_game"} & set(config_to_json(TableConfig()))
    with pytest.raises(InvalidConfig) as refusal:
        config_from_json({**data, "rotation": ["RAZZ", "OMAHA"]})
    assert refusal.value.field == "rotation"


def test_a_game_may_have_its_own_stakes_checked_as_the_tables() -> None:
    """§13: "unless the table gives a game its own": each game of the rotation at most once, valid stakes, and
    none at a tournament table (its level sets the stakes)."""
    mixed = TableConfig(rotation=(STUD, RAZZ), game_stakes=((RAZZ, 100, 200, 400, 800),))
    razz = replace(mixed, ante=100, bring_in=200, small_bet=400, big_bet=800)
    assert mixed.validate().for_game(RAZZ) == razz
    assert mixed.for_game(STUD) is mixed
    assert config_from_json(config_to_json(mixed)) == mixed
    assert config_to_json(mixed)["game_stakes"] == [
        {"game": "RAZZ", "ante": 100, "bring_in": 200, "small_bet": 400, "big_bet": 800}]
    for values in (dict(game_stakes=((HI_LO, 50, 100, 200, 400),)),
                   dict(game_stakes=((RAZZ, 50, 100, 200, 400), (RAZZ, 50, 100, 200, 400))),
                   dict(game_stakes=((RAZZ, 50, 300, 200, 400),)), dict(game_stakes=((RAZZ, 50, 100),)),
                   dict(game_stakes=((RAZZ, 50, 100, 200, 400),), tournament_id="t", currency="")):
        with pytest.raises(InvalidConfig) as refusal:
            replace(mixed, **values).validate()
        assert refusal.value.field == "game_stakes", values
    with pytest.raises(InvalidConfig) as refusal:
        TableConfig(game_stakes=((STUD, 50, 100, 200, 400),)).validate()
    assert refusal.value.field == "game_stakes"


# --- the game of each hand ----------------------------------------------------------------------------

def test_the_rotation_plays_each_game_for_its_count_in_order_then_starts_again() -> None:
    """§13, "R-S-E" two hands each: R R S S E E R."""
    table = mixed_table((RAZZ, STUD, HI_LO), 2)
    announced = []
    for _ in range(7):
        announced.append((next_game(table.state), hands_left_in_current_game(table.state)))
        fold_hand(table)
    assert games_dealt(table) == [RAZZ, RAZZ, STUD, STUD, HI_LO, HI_LO, RAZZ]
    assert announced == [(RAZZ, 2), (RAZZ, 1), (STUD, 2), (STUD, 1), (HI_LO, 2), (HI_LO, 1), (RAZZ, 2)]


def test_the_last_hand_of_a_game_is_followed_by_a_game_changed_event_naming_the_next() -> None:
    """§13, every player knows the next hand's game before it is dealt: GameChanged comes right after the
    HandEnded of each game's last hand (a voided hand, not counting, brings none), and replays as logged."""
    table = mixed_table((RAZZ, STUD, HI_LO), 2)
    fold_hand(table)
    assert of_type(table.log, "GameChanged") == []
    fold_hand(table)
    void_hand(table)
    fold_hand(table)
    fold_hand(table)
    changes = [(event.after_hand, event.game, event.hands) for event in of_type(table.log, "GameChanged")]
    assert changes == [(2, STUD, 2), (5, HI_LO, 2)]
    kinds = [type(event).__name__ for event in table.log]
    assert kinds[kinds.index("GameChanged") - 1] == "HandEnded"
    logged = [event_from_json(event_to_json(event)) for event in table.log]
    assert logged == table.log and replay(logged) == table.state


def test_a_single_game_table_logs_no_game_change() -> None:
    table = Table(TableConfig(min_buy_in=1, max_buy_in=10**9), stacks={1: 10**8, 2: 10**8})
    for _ in range(3):
        fold_hand(table)
    assert of_type(table.log, "GameChanged") == []


def test_a_voided_hand_does_not_count_toward_the_rotation() -> None:
    """§13 with §12: Stud for one hand, then Razz; the first Razz hand is voided, so Razz is dealt again."""
    table = mixed_table((STUD, RAZZ), 1)
    fold_hand(table)
    void_hand(table)
    assert (next_game(table.state), hands_left_in_current_game(table.state)) == (RAZZ, 1)
    fold_hand(table)
    fold_hand(table)
    assert games_dealt(table) == [STUD, RAZZ, RAZZ, STUD]
    assert table.state.rotation_hands == 3
    # each hand's place in its game's run: the voided Razz hand's is dealt again
    assert [event.game_hand for event in of_type(table.log, "HandStarted")] == [1, 1, 1, 1]


def test_each_hand_records_its_place_in_its_games_run() -> None:
    """§13: "hand 2 of 3": HandStarted.game_hand, 1..hands_per_game; 0 at a single game's table."""
    table = mixed_table((RAZZ, HI_LO), 3)
    for _ in range(7):
        fold_hand(table)
    assert [(event.game, event.game_hand) for event in of_type(table.log, "HandStarted")] == [
        (RAZZ, 1), (RAZZ, 2), (RAZZ, 3), (HI_LO, 1), (HI_LO, 2), (HI_LO, 3), (RAZZ, 1)]
    single = Table(TableConfig(min_buy_in=1, max_buy_in=10**9), stacks={1: 10**8, 2: 10**8})
    fold_hand(single)
    assert of_type(single.log, "HandStarted")[0].game_hand == 0


def test_a_hand_runs_in_its_own_game_across_a_rotation_point() -> None:
    """§13: the last Stud hand before Razz is played to its showdown as Stud, a snapshot taken in the middle
    of it keeps its game, and only once it has ended is the next hand Razz."""
    table = mixed_table((STUD, RAZZ), 2)
    fold_hand(table)
    table.start(SHOWDOWN_DECK)
    assert table.state.hand.game is STUD
    assert (next_game(table.state), hands_left_in_current_game(table.state)) == (RAZZ, 1)
    restored = state_from_json(state_to_json(table.state))
    assert restored == table.state and restored.hand.game is STUD
    events = play_passively(table)
    shown = of_type(events, "HandShown")
    assert shown and all(event.high is not None and event.low is None for event in shown)
    (awards,) = [pot["awards"] for pot in of_type(events, "HandEnded")[0].pots]
    assert [(award["seat"], award["half"]) for award in awards] == [(2, "high")]
    assert (next_game(table.state), hands_left_in_current_game(table.state)) == (RAZZ, 2)


@pytest.mark.parametrize("game, bring_in_seat, winners", [
    (STUD, 1, [(2, "high")]), (RAZZ, 2, [(1, "low")]), (HI_LO, 1, [(2, "high"), (1, "low")])])
def test_bring_in_first_to_act_showdown_splits_and_rake_follow_the_hands_game(
        game: Variant, bring_in_seat: int, winners: list[tuple[int, str]]) -> None:
    """§13: the same cards dealt in each game of the rotation: the bring-in (§3), the showdown and the split
    (§5, §6) are that game's; the stakes and the rake (§10) are the table's in every game."""
    table = mixed_table((STUD, RAZZ, HI_LO), 1, rake_basis_points=500, rake_cap_2=10**6, rake_cap_3_4=10**6,
                        rake_cap_5_plus=10**6)
    while next_game(table.state) is not game:
        fold_hand(table)
    events = table.start(SHOWDOWN_DECK)
    assert [event.amount for event in of_type(events, "AntePosted")] == [50, 50]
    assert of_type(events, "BettingRoundStarted")[0].first_seat == bring_in_seat
    events = play_passively(table)
    ended = of_type(events, "HandEnded")[0]
    assert [(award["seat"], award["half"]) for pot in ended.pots for award in pot["awards"]] == winners
    total = sum(pot["amount"] for pot in ended.pots)
    assert ended.rake == rake_for_hand(table.config, total, 2, True) > 0


def test_fourth_streets_open_pair_option_follows_the_hands_game() -> None:
    """§4 through §13: an open pair on fourth street lets the opener bet the big bet at Stud, not at Razz."""
    deck = stacked_deck(deal_sequence([1, 2], {1: "2c 2d Kc Kd", 2: "3c 3d 9h 8h"}))
    for game in (STUD, RAZZ):
        table = mixed_table((game, RAZZ if game is STUD else STUD), 8)
        table.start(deck)
        while table.state.hand.street < 4:
            seat = to_act(table.state)
            kinds = {str(kind) for kind, _ in legal_actions(table.state, table.pid(seat)).options}
            if "BRING_IN" in kinds:
                table.act(seat, "BRING_IN", table.config.bring_in)
            else:
                table.act(seat, "CALL")
        options = {str(kind): amounts for kind, amounts in
                   legal_actions(table.state, table.pid(to_act(table.state))).options}
        assert options["BET"] == ((200, 400) if game is STUD else (200,))


def test_a_hand_is_played_at_its_games_own_stakes() -> None:
    """§13: Razz at its own stakes (ante, bring-in, bets), Stud at the table's; a snapshot keeps them."""
    table = mixed_table((STUD, RAZZ), 1, game_stakes=((RAZZ, 10, 25, 100, 200),))
    fold_hand(table)
    events = table.start(ANY_DECK)
    assert table.state.hand.game is RAZZ and table.state.config.ante == 50
    assert [event.amount for event in of_type(events, "AntePosted")] == [10, 10]
    seat = to_act(table.state)
    options = {str(kind): amounts for kind, amounts in legal_actions(table.state, table.pid(seat)).options}
    assert options == {"BRING_IN": (25,), "COMPLETE": (100,)}
    assert state_from_json(state_to_json(table.state)) == table.state
    table.act(seat, "COMPLETE", 100)
    other = to_act(table.state)
    options = {str(kind): amounts for kind, amounts in legal_actions(table.state, table.pid(other)).options}
    assert options["RAISE"] == (200,)
    table.act(other, "FOLD")
    events = table.start(ANY_DECK)
    assert table.state.hand.game is STUD
    assert [event.amount for event in of_type(events, "AntePosted")] == [50, 50]


# --- replay and restart ----------------------------------------------------------------------------------

def test_restart_and_replay_land_on_the_same_game() -> None:
    """The game is the log's: replaying the events, from their JSON too, or restoring a snapshot gives the
    same state, and the next hand dealt from either is dealt in the same game."""
    table = mixed_table((HI_LO, RAZZ, STUD), 2)
    for voided in (False, True, False, False, True, False):
        void_hand(table) if voided else fold_hand(table)
    from_json = replay([event_from_json(event_to_json(event)) for event in table.log])
    restored = state_from_json(state_to_json(table.state))
    assert replay(table.log) == from_json == restored == table.state
    deal = StartHand(ANY_DECK, COMMITMENT, table.now)
    games = {decide(state, deal)[0].game for state in (table.state, from_json, restored)}
    assert games == {STUD} == {next_game(table.state)}


def test_an_older_logs_hand_is_played_in_the_tables_variant() -> None:
    """A HandStarted from before mixed tables (v1, no game) still reads: its game is the config's variant."""
    table = Table(TableConfig(variant=RAZZ, min_buy_in=1), stacks={1: 10_000, 2: 10_000})
    table.start(ANY_DECK)
    old = {key: value for key, value in event_to_json(of_type(table.log, "HandStarted")[0]).items()
           if key != "game"} | {"v": 1}
    started = event_from_json(old)
    assert isinstance(started, HandStarted) and started.game is None
    events = [event_from_json(event_to_json(e)) if not isinstance(e, HandStarted) else started
              for e in table.log]
    assert replay(events).hand.game is RAZZ


# --- the property: the game of hand n is a pure function of the log ---------------------------------------

ROTATIONS = [order for size in (2, 3) for order in itertools.permutations(Variant, size)]


@settings(max_examples=25, deadline=None)
@given(rotation=st.sampled_from(ROTATIONS),
       hands_per_game=st.integers(1, 3), voided=st.lists(st.booleans(), max_size=10))
def test_the_game_of_each_hand_is_a_function_of_the_hands_ended_before_it(
        rotation: tuple[Variant, ...], hands_per_game: int, voided: list[bool]) -> None:
    """For any sequence of ended and voided hands, hand n is dealt in the rotation's game for the number of
    hands that reached their end before it, and a replay of the log deals it the same."""
    table = mixed_table(rotation, hands_per_game)
    counted = []
    for void in voided:
        counted.append(table.state.rotation_hands)
        void_hand(table) if void else fold_hand(table)
    ended_before = [sum(1 for earlier in voided[:n] if not earlier) for n in range(len(voided))]
    assert counted == ended_before
    assert games_dealt(table) == [game_of_next_hand(table.config, ended) for ended in ended_before]
    assert games_dealt(table) == [rotation[ended // hands_per_game % len(rotation)] for ended in ended_before]
    replayed = replay([event_from_json(event_to_json(event)) for event in table.log])
    assert replayed == table.state
    ended = sum(not void for void in voided)
    assert hands_left_in_current_game(replayed) == hands_left_in_game(table.config, ended)


def test_a_single_game_table_deals_every_hand_in_its_variant() -> None:
    table = Table(replace(TableConfig(min_buy_in=1), variant=HI_LO), stacks={1: 10_000, 2: 10_000})
    for _ in range(3):
        fold_hand(table)
    assert games_dealt(table) == [HI_LO] * 3
    assert (next_game(table.state), hands_left_in_current_game(table.state)) == (HI_LO, 0)
