"""Typed events (proto/stud/v1/events.proto): every engine event type has its message, converts without
losing a field, and shows a viewer nothing the redaction hid.

Events come from random play with the property tests' generators (``test_engine_properties.Run``), plus
the commands those do not issue (client seeds), so every type the engine emits is converted.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from event_messages import event_body, event_json, message_cards
from test_engine_properties import Run, random_config

from stud_service.engine import (
    CloseTable,
    CommitShuffle,
    CreateTable,
    DeleteChat,
    JoinWaitingList,
    MuteChat,
    PauseTable,
    ResumeTable,
    SendChat,
    SetClientSeed,
    SitDown,
    StartHand,
    TableConfig,
    UpdateTableSettings,
    Variant,
    VoidHand,
    event_to_json,
)
from stud_service.engine.events import EVENT_TYPES, CardDealt, HandEnded, HandShown, HandStarted
from stud_service.server.api.events_proto import EVENT_FIELDS, UnknownEventType, event_proto
from stud_service.server.api.redact import EventRedactor
from stud_service.server.proto_gen import events_pb2

RECORDED = datetime(2026, 1, 2, 3, 4, 5, 678_000, tzinfo=UTC)
SERVER_SEED = "5e" * 32
# Engine fields that the message spells differently (the rest keep their names).
RENAMED = {"at_ms": {"time"}, "deadline_ms": {"deadline"}, "seats": {"players"},
           "reserve_ms": {"reserve"}, "used_ms": {"used"}, "added_ms": {"added"},
           "extra": {"client_seeds", "server_seed", "deck_root", "commitment_version"},
           "secret": set()}  # ShuffleCommitted's seed: never in a message


def test_every_engine_event_type_has_a_message_with_every_field() -> None:
    """Adding an engine event type (or a field) without its proto message (or field) fails here."""
    missing = sorted(set(EVENT_TYPES) - set(EVENT_FIELDS))
    assert not missing, f"add a message to TableEvent's `event` oneof (events.proto) for: {missing}"
    assert set(EVENT_FIELDS) == set(EVENT_TYPES), "a TableEvent message matches no engine event type"
    for name, cls in EVENT_TYPES.items():
        message = events_pb2.TableEvent.DESCRIPTOR.fields_by_name[EVENT_FIELDS[name]].message_type
        fields = message.fields_by_name
        for field in dataclasses.fields(cls):
            wanted = RENAMED.get(field.name, {field.name})
            assert wanted <= set(fields), f"{name}.{field.name} has no field {sorted(wanted - set(fields))}"


def test_an_event_type_without_a_message_is_refused_not_sent_empty() -> None:
    with pytest.raises(UnknownEventType):
        event_proto(7, {"type": "SomethingNew", "v": 1}, RECORDED)


def _played(sessions: int = 24) -> list[Any]:
    """Engine events of random sessions, every type among them."""
    events: list[Any] = []
    for seed in range(sessions):
        rng = random.Random(seed)
        run = Run(rng)
        full = seed % 3 == 0  # a table its players fill: the waiting list and its offers
        config = random_config(rng, 3 if full else 8)
        run.run(CreateTable(f"t{seed}", config, run.now))
        run.run(CommitShuffle("ab" * 32, {"server_seed": SERVER_SEED}, run.now))
        for seat in rng.sample(range(1, config.seats + 1), config.seats if full else rng.randint(2, 6)):
            buy_in = rng.randint(config.max_buy_in // 4, config.max_buy_in)
            run.run(SitDown(f"p{seat}", seat, buy_in, run.now))
            run.run(SetClientSeed(f"p{seat}", f"seed {seat}", run.now))
        run.play_hands(12 if full else rng.randint(2, 5))  # seats free up, in time, on a full table
        chat(run, rng)
        events.extend(run.log)
    return events + _stopped() + _mixed()


def _mixed() -> list[Any]:
    """A mixed table (RULES.md §13): its hands' games and a GameChanged after each game's last hand."""
    run = Run(random.Random(1))
    run.run(CreateTable("mixed", TableConfig(variant=Variant.RAZZ, rotation=(Variant.RAZZ, Variant.STUD),
                                             hands_per_game=1, min_buy_in=1), run.now))
    run.run(SitDown("p1", 1, 5_000, run.now))
    run.run(SitDown("p2", 2, 5_000, run.now))
    run.play_hands(3)
    games = [event.game for event in run.log if isinstance(event, HandStarted)]
    assert games[:2] == [Variant.RAZZ, Variant.STUD]
    return run.log


def _stopped() -> list[Any]:
    """An operator's commands (RULES.md §12), each once: pause, resume, settings, a void, closing."""
    run = Run(random.Random(0))
    run.run(CreateTable("stopped", TableConfig(seats=2, min_buy_in=1), run.now))
    run.run(SitDown("p1", 1, 5_000, run.now))
    run.run(SitDown("p2", 2, 5_000, run.now))
    run.run(JoinWaitingList("w1", run.now))
    run.run(PauseTable("ops", "maintenance", run.now))
    run.run(ResumeTable("ops", "done", run.now))
    run.run(UpdateTableSettings("ops", "longer clocks", {"action_clock_seconds": 45, "name": "Slow",
                                                          "interrupted_hand_void_seconds": 90}, run.now))
    run.run(StartHand(tuple(range(52)), "cafe", run.now))
    run.run(VoidHand(1, "ops", "fault", run.now))
    run.run(CloseTable("ops", "closing", run.now))
    return run.log


def chat(run: Run, rng: random.Random) -> None:
    """The table chat's events (docs/chat.md): a message, an operator's mute, unmute and deletion."""
    player = run.state.seats[rng.choice(list(run.state.seats))].player_id if run.state.seats else None
    if player is None or run.state.hand is not None:
        return
    run.run(SendChat(player, f"gg from {player}", run.now))
    run.run(MuteChat(player, "op", "spam", now_ms=run.now))
    run.run(MuteChat(player, "op", "sorry", muted=False, now_ms=run.now))
    run.run(DeleteChat(run.state.chat.messages, "op", "spoiler", run.now))


@pytest.fixture(scope="module")
def played() -> list[Any]:
    return _played()


def _as_logged(event: Any) -> dict[str, Any]:
    """The event's JSON as the server logs it: HandStarted's ``extra`` is the runtime's audit data."""
    data = event_to_json(event)
    if isinstance(event, HandStarted):
        seeds = {str(seat): f"seed {seat}" for seat, _, _ in event.seats}
        data["extra"] = {"client_seeds": seeds, "deck_root": "cd" * 32, "commitment_version": 2}
    return data


def _as_shown(data: dict[str, Any]) -> dict[str, Any]:
    """What the message is to say: a pot's half only when it was split (Award.pot_half), else "whole";
    never a committed seed."""
    if data["type"] == "ShuffleCommitted":
        return {key: value for key, value in data.items() if key != "secret"}
    if data["type"] != "HandEnded":
        return data
    pots = []
    for pot in data["pots"]:
        split = {"high", "low"} <= {award["half"] for award in pot["awards"]}
        pots.append({**pot, "awards": [{**award, "half": award["half"] if split else "whole"}
                                       for award in pot["awards"]]})
    return {**data, "pots": pots}


def test_every_event_converts_without_losing_a_field(played: list[Any]) -> None:
    seen = set()
    for version, event in enumerate(played, start=1):
        data = _as_logged(event)
        message = events_pb2.TableEvent.FromString(event_proto(version, data, RECORDED).SerializeToString())
        assert (message.version, message.type) == (version, data["type"])
        assert message.record_time.ToDatetime(tzinfo=UTC) == RECORDED
        assert event_json(message) == _as_shown({key: value for key, value in data.items() if key != "v"})
        seen.add(message.type)
    assert seen == set(EVENT_TYPES), f"not emitted by the generators: {sorted(set(EVENT_TYPES) - seen)}"


def _hands(events: list[Any]) -> list[list[Any]]:
    hands: list[list[Any]] = []
    for event in events:
        if isinstance(event, HandStarted):
            hands.append([])
        if hands and getattr(event, "hand", None) is not None:
            hands[-1].append(event)
    return hands


def test_a_seat_and_an_observer_see_no_hidden_card(played: list[Any]) -> None:
    """Down cards of other seats stay hidden until shown; the deck and server seed never show; an auditor
    of the finished hand gets every card (seeds come only through the audit API)."""
    hidden_checked = 0
    for hand in _hands(played):
        started = hand[0]
        down = {e.card: e.seat for e in hand if isinstance(e, CardDealt) and not e.face_up and e.seat}
        for player_id in [player for _, player, _ in started.seats] + [None]:
            own = next((seat for seat, player, _ in started.seats if player == player_id), None)
            redactor = EventRedactor(player_id)
            for version, event in enumerate(hand, start=1):
                message = event_proto(version, redactor.redact(_as_logged(event)), RECORDED)
                body = event_body(message)
                if isinstance(event, HandStarted):
                    assert not body.deck and not body.server_seed and body.commitment == event.commitment
                    assert dict(body.client_seeds)  # public audit data stays
                if isinstance(event, CardDealt):
                    others = not event.face_up and event.seat is not None and event.seat != own
                    assert body.hidden is others and (body.card == 0 if others else body.card == event.card)
                    assert (body.seat, body.street) == (event.seat or 0, event.street)  # that a card went
                    hidden_checked += others
                if not isinstance(event, HandShown | HandEnded):
                    for card in message_cards(message):
                        assert down.get(card, own) == own, f"{player_id} saw seat {down[card]}'s card"
        auditor = EventRedactor(None, auditor=True)
        full = [event_proto(v, auditor.redact(_as_logged(e), hands_ended=e.hand), RECORDED)
                for v, e in enumerate(hand, start=1)]
        assert list(event_body(full[0]).deck) == list(started.deck)
        assert event_body(full[0]).deck_root == "cd" * 32 and not event_body(full[0]).server_seed
        assert not any(m.card_dealt.hidden for m in full)
    assert hidden_checked > 100
