"""Events and snapshots as JSON, and what each viewer may see (DESIGN.md, "Hidden information")."""

from __future__ import annotations

import json

import pytest
from engine_helpers import deal_table, of_type, play_passively

from stud_service.engine import (
    EVENT_TYPES,
    EVENT_VERSIONS,
    STATE_FORMAT_VERSION,
    CardDealt,
    EventDecodeError,
    HandStarted,
    StateDecodeError,
    Viewer,
    event_from_json,
    event_to_json,
    replay,
    state_from_json,
    state_to_json,
    view_event,
    view_state,
)

HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9h 8c 8d 7d"}


def test_every_event_is_plain_json_with_type_version_and_hand() -> None:
    table = deal_table(HANDS)
    play_passively(table)
    for event in table.log:
        data = event_to_json(event)
        assert json.loads(json.dumps(data)) == data
        assert data["type"] == type(event).__name__ and data["v"] == EVENT_VERSIONS[type(event)]
        if type(event).__name__ in ("HandStarted", "CardDealt", "PlayerActed", "HandEnded", "AntePosted"):
            assert data["hand"] == 1
        assert event_from_json(json.loads(json.dumps(data))) == event


def test_hand_started_carries_everything_to_replay_the_hand_alone() -> None:
    """A hand's own events (from HandStarted) replay to the same stacks as the full table log."""
    table = deal_table(HANDS)
    play_passively(table)
    start = table.log.index(of_type(table.log, "HandStarted")[0])
    alone = replay([event_from_json(event_to_json(e)) for e in table.log[start:]])
    assert {s: x.stack for s, x in alone.seats.items()} == {s: x.stack for s, x in table.state.seats.items()}
    started = event_to_json(table.log[start])
    assert started["config"]["variant"] == "STUD"
    assert started["seats"] == [[1, "p1", 10_000], [2, "p2", 10_000]]
    assert len(started["deck"]) == 52 and started["commitment"]


@pytest.mark.parametrize(("data", "message"), [
    ({"type": "Nope", "v": 1}, "unknown event type"),
    ({"type": "CardDealt", "v": 1, "hand": 1, "street": 3, "seat": 1, "card": 5}, "missing field 'face_up'"),
    ({"type": "CardDealt", "v": 99, "hand": 1, "street": 3, "seat": 1, "card": 5, "face_up": True}, "newer"),
    ({"type": "CardDealt", "hand": 1}, "schema version"),
    ({"type": "CardDealt", "v": 1, "hand": 1, "street": 3, "seat": 1, "card": 5, "face_up": True, "x": 1},
     "unexpected field"),
    ([1, 2], "JSON object"),
])
def test_undecodable_events_raise_a_clear_error(data: object, message: str) -> None:
    with pytest.raises(EventDecodeError, match=message):
        event_from_json(data)  # type: ignore[arg-type]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("action", "NOPE", "bad field 'action'"),
    ("action", ["FOLD"], "bad field 'action'"),
    ("amount", "100", "PlayerActed: "),
    ("timeout", None, "PlayerActed: "),
])
def test_a_payload_with_every_field_but_a_bad_value_is_refused_as_before(
        field: str, value: object, message: str) -> None:
    """Payloads with all their fields are built straight from their values (codec.py): a bad value
    there is still refused with the checked path's own message."""
    data = {"type": "PlayerActed", "v": 1, "hand": 1, "seat": 2, "action": "CALL", "amount": 100,
            "chips": 100, "all_in": False, "at_ms": 5, "timeout": False}
    assert event_from_json(data).action.value == "CALL"
    with pytest.raises(EventDecodeError, match=message):
        event_from_json({**data, field: value})


def test_every_event_of_simulated_tables_decodes_to_itself() -> None:
    """Every event type the engine writes, from tables of each variant (raked, so HandEnded has all
    its fields), read back through JSON text as the store reads it."""
    from stud_service.audit.simulate import simulate_table
    from stud_service.engine import Variant

    seen = set()
    for index, variant in enumerate(Variant):
        table = simulate_table(f"codec-{index}", variant, hands=15, seed=index, raked=True)
        for event in (e for command in table.commands for e in command):
            assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
            seen.add(type(event).__name__)
    assert {"TableCreated", "HandStarted", "CardDealt", "PlayerActed", "HandEnded"} <= seen


def test_each_hand_s_config_is_the_one_its_own_json_gives() -> None:
    """Decoding reuses the last config built from the same JSON (codec.py): JSON changed in place
    since, or equal only in Python's eyes (1 == True), gets its own."""
    table = deal_table(HANDS)
    data = event_to_json(of_type(table.log, "HandStarted")[0])
    assert event_from_json(data).config.ante == data["config"]["ante"]
    data["config"]["ante"] = 75
    assert event_from_json(data).config.ante == 75
    data["config"]["uncapped_heads_up"] = 0
    assert type(event_from_json(data).config.uncapped_heads_up) is int
    data["config"]["uncapped_heads_up"] = False
    assert event_from_json(data).config.uncapped_heads_up is False


def test_event_types_are_all_registered_with_a_version() -> None:
    assert set(EVENT_VERSIONS) == set(EVENT_TYPES.values())
    assert all(isinstance(v, int) and v >= 1 for v in EVENT_VERSIONS.values())


def test_state_snapshot_round_trips_mid_hand_and_refuses_other_formats() -> None:
    table = deal_table(HANDS)
    table.act(1, "BRING_IN", 100)
    data = json.loads(json.dumps(state_to_json(table.state)))
    assert data["format"] == STATE_FORMAT_VERSION
    restored = state_from_json(data)
    assert restored == table.state
    table.state = restored  # play on from the snapshot
    play_passively(table)
    with pytest.raises(StateDecodeError):
        state_from_json({**data, "format": STATE_FORMAT_VERSION + 1})


def test_a_snapshot_keeps_the_fold_order_and_an_older_one_without_it_is_refused() -> None:
    """RULES.md §5 gives a pot whose players all folded to the last of them: the order is state.  A
    format-3 snapshot lacks it, so it is refused and the table is folded from its events instead."""
    table = deal_table({1: "Ah Kh 2c", 2: "Ad Kd 9s", 3: "Ac Kc 9h", 4: "As Ks 9d"})
    table.act(1, "BRING_IN", 100)
    table.act(2, "CALL")
    table.act(3, "FOLD")
    table.act(4, "FOLD")
    folds = table.state.hand.folds
    assert folds == (3, 4)
    data = json.loads(json.dumps(state_to_json(table.state)))
    restored = state_from_json(data)
    assert restored == table.state and restored.hand.folds == folds and type(restored.hand.folds) is tuple
    assert STATE_FORMAT_VERSION >= 4
    with pytest.raises(StateDecodeError):
        state_from_json({**data, "format": 3})


def test_a_seat_sees_its_own_down_cards_only() -> None:
    table = deal_table(HANDS)
    downs = [e for e in table.log if isinstance(e, CardDealt) and not e.face_up]
    for event in downs:
        mine = view_event(table.state, event, Viewer.seat(f"p{event.seat}"))
        theirs = view_event(table.state, event, Viewer.seat(f"p{3 - event.seat}"))
        observer = view_event(table.state, event, Viewer.observer())
        assert mine["card"] == event.card
        assert theirs["card"] is None and theirs["hidden"] is True
        assert observer["card"] is None
    up = next(e for e in table.log if isinstance(e, CardDealt) and e.face_up)
    assert view_event(table.state, up, Viewer.observer())["card"] == up.card


def test_the_deck_order_is_for_the_auditor_and_only_after_the_hand() -> None:
    table = deal_table(HANDS)
    started = of_type(table.log, "HandStarted")[0]
    assert isinstance(started, HandStarted)
    assert view_event(table.state, started, Viewer.auditor())["deck"] is None  # hand still running
    assert view_event(table.state, started, Viewer.seat("p1"))["deck"] is None
    down = next(e for e in table.log if isinstance(e, CardDealt) and not e.face_up and e.seat == 2)
    assert view_event(table.state, down, Viewer.auditor())["card"] is None
    play_passively(table)
    assert view_event(table.state, started, Viewer.auditor())["deck"] == list(started.deck)
    assert view_event(table.state, down, Viewer.auditor())["card"] == down.card
    assert view_event(table.state, started, Viewer.observer())["deck"] is None


def test_view_state_shows_counts_of_hidden_cards_and_the_viewers_legal_actions() -> None:
    table = deal_table(HANDS)
    mine = view_state(table.state, Viewer.seat("p1"))
    players = {p["seat"]: p for p in mine["hand"]["players"]}
    assert players[1]["down"] == list(table.state.hand.players[1].down)
    assert players[2]["down"] is None and players[2]["down_count"] == 2 and players[2]["up"]
    assert mine["to_act"] == 1 and mine["deadline_ms"] == table.now + 30_000
    assert [o["action"] for o in mine["legal_actions"]["options"]] == ["BRING_IN", "COMPLETE"]
    observer = view_state(table.state, Viewer.observer())
    assert all(p["down"] is None for p in observer["hand"]["players"]) and observer["legal_actions"] is None
    assert json.loads(json.dumps(observer)) == observer


def test_mucked_hands_are_not_revealed_in_the_result() -> None:
    table = deal_table({1: "2c 3c 4d 5d 7s 8s 9h", 2: "Ah Ad Kh Kd 9c 9d Js"})
    ended = play_passively(table)[-1]
    data = view_event(table.state, ended, Viewer.observer())
    assert data["mucked"] == [1] and [seat for seat, _ in data["shown"]] == [2]
