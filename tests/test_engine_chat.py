"""The table chat in the engine (docs/chat.md): who may write when, what a message may hold, the rate
limit, operators' mutes and deletions; a refused message changes nothing."""

from __future__ import annotations

import pytest
from engine_helpers import T0, Table, deal_table, play_passively

from stud_service.engine import (
    ChatMessageDeleted,
    ChatMessageNotFound,
    ChatMessageSent,
    ChatMuted,
    ChatMuteSet,
    ChatNamesCard,
    ChatRateLimited,
    ChatSilencedAllIn,
    ChatSpectatorsSilent,
    ChatTextRefused,
    DeleteChat,
    DomainError,
    MuteChat,
    SendChat,
    TableConfig,
    Viewer,
    decide,
    replay,
    state_from_json,
    state_to_json,
    view_event,
)
from stud_service.engine.errors import MalformedCommand
from stud_service.engine.rules.chat import CHAT_BURST, CHAT_WINDOW_MS

HANDS = {1: "Ah Kh 2c 3c 4c 5c 6c", 2: "Ad Kd 9s 9c 8d 7d 6d", 3: "As Ks 9h 8h 7h 6h 5h"}


def refused(table: Table, command: object, error: type[DomainError]) -> DomainError:
    before = state_to_json(table.state)
    with pytest.raises(error) as caught:
        decide(table.state, command)
    assert state_to_json(table.state) == before
    return caught.value


def test_a_seated_player_writes_and_messages_are_numbered() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000, 2: 1_000})
    first = table.run(SendChat("p1", "good luck all", T0))
    second = table.run(SendChat("p2", "gl", T0 + 1))
    assert first == [ChatMessageSent(1, "p1", 1, "good luck all", T0)]
    assert second == [ChatMessageSent(2, "p2", 2, "gl", T0 + 1)]
    assert table.state.chat.messages == 2


def test_spectators_write_only_where_the_table_lets_them() -> None:
    closed = Table(TableConfig(min_buy_in=1), stacks={1: 1_000})
    error = refused(closed, SendChat("railbird", "hi", T0), ChatSpectatorsSilent)
    assert error.reason == "CHAT_SPECTATORS_SILENT"
    open_table = Table(TableConfig(min_buy_in=1, chat_spectators=True), stacks={1: 1_000})
    assert open_table.run(SendChat("railbird", "hi", T0)) == [ChatMessageSent(1, "railbird", None, "hi", T0)]


@pytest.mark.parametrize(("text", "fragment"), [
    ("x" * 1_000_000, "at most 200"),  # huge
    ("hi\x00there", "U+0000"),  # NUL: the log cannot store it
    ("\u202egnp.exe", "U+202E"),  # a bidi override
    ("", "needs some text"),
])
def test_hostile_text_is_refused_with_a_reason_and_nothing_appended(text: str, fragment: str) -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000})
    error = refused(table, SendChat("p1", text, T0), ChatTextRefused)
    assert fragment in error.message and error.reason == "CHAT_TEXT_REFUSED"
    assert error.metadata == {"max_chars": "200"}


def test_a_flood_is_cut_by_the_rate_limit() -> None:
    """A burst passes; the next message in the same window is refused (RESOURCE_EXHAUSTED) with the wait."""
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000, 2: 1_000})
    for index in range(CHAT_BURST):
        table.run(SendChat("p1", f"msg {index}", T0 + index))
    error = refused(table, SendChat("p1", "one more", T0 + 100), ChatRateLimited)
    assert error.grpc_code_name == "RESOURCE_EXHAUSTED"
    assert error.metadata == {"retry_after_ms": str(CHAT_WINDOW_MS - 100)}
    table.run(SendChat("p2", "others may still talk", T0 + 100))
    table.run(SendChat("p1", "later", T0 + CHAT_WINDOW_MS))
    assert table.state.chat.messages == CHAT_BURST + 2


def test_no_cards_while_a_hand_runs() -> None:
    table = deal_table(HANDS)
    assert refused(table, SendChat("p3", "I folded As", T0), ChatNamesCard).reason == "CHAT_NAMES_CARD"
    table.run(SendChat("p3", "as if I would fold", T0))
    play_passively(table)
    table.run(SendChat("p3", "I had As", T0 + 1))  # between hands the hand is history


def test_the_all_in_silence_holds_the_players_still_in_the_hand() -> None:
    """Poker Mavens' switch: once a player is all-in the players still in the hand may not chat; those who
    folded and those not dealt in may."""
    config = TableConfig(min_buy_in=1, chat_all_in_silence=True)
    hands = {**HANDS, 4: "Qc Jc Tc 9d 8c 7c Qd"}
    stacks = {1: 10_000, 2: 150, 3: 10_000, 4: 10_000}
    table = deal_table(hands, stacks=stacks, config=config)
    table.act(1, "BRING_IN", 100)
    table.act(2, "CALL")  # ante 50 + 100: all-in
    table.act(3, "FOLD")
    assert table.state.hand.players[2].all_in
    for player in ("p1", "p2", "p4"):
        refused(table, SendChat(player, "hurry up", T0), ChatSilencedAllIn)
    table.run(SendChat("p3", "I am out of it", T0))
    other = deal_table(hands, stacks=stacks)  # the switch off: all may talk
    other.act(1, "BRING_IN", 100)
    other.act(2, "CALL")
    other.run(SendChat("p1", "hurry up", T0))


def test_an_operator_mutes_and_unmutes_a_player() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000})
    assert table.run(MuteChat("p1", "op", "abuse", now_ms=T0)) == [ChatMuteSet("p1", True, "op", "abuse", T0)]
    assert table.run(MuteChat("p1", "op", "again", now_ms=T0)) == []  # already muted
    assert refused(table, SendChat("p1", "let me talk", T0), ChatMuted).grpc_code_name == "PERMISSION_DENIED"
    assert table.run(MuteChat("p1", "op", "apologised", muted=False, now_ms=T0)) == [
        ChatMuteSet("p1", False, "op", "apologised", T0)]
    table.run(SendChat("p1", "sorry", T0))


def test_an_operator_deletes_a_message_and_only_an_auditor_reads_it_again() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000, 2: 1_000})
    table.run(SendChat("p1", "something rude", T0))
    sent = table.log[-1]
    assert table.run(DeleteChat(1, "op", "rude", T0)) == [ChatMessageDeleted(1, "op", "rude", T0)]
    assert table.run(DeleteChat(1, "op", "rude", T0)) == []
    refused(table, DeleteChat(2, "op", "rude", T0), ChatMessageNotFound)
    refused(table, DeleteChat(0, "op", "rude", T0), ChatMessageNotFound)
    for viewer in (Viewer.seat("p1"), Viewer.seat("p2"), Viewer.observer()):
        shown = view_event(table.state, sent, viewer)
        assert shown["text"] is None and shown["deleted"] is True
    assert view_event(table.state, sent, Viewer.auditor())["text"] == "something rude"


def test_an_operators_reason_is_plain_text() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000})
    for reason in ("", "x" * 201, "a\x00b"):
        assert refused(table, MuteChat("p1", "op", reason, now_ms=T0), MalformedCommand).metadata == {
            "field": "reason"}


def test_the_chat_state_replays_and_survives_a_snapshot() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 1_000, 2: 1_000})
    for index in range(3):
        table.run(SendChat("p1", f"m{index}", T0 + index))
    table.run(MuteChat("p2", "op", "spam", now_ms=T0))
    table.run(DeleteChat(2, "op", "spam", T0))
    assert replay(table.log) == table.state
    restored = state_from_json(state_to_json(table.state))
    assert restored == table.state
    table.state = restored  # the rate limit counts from the log, on any replica
    for index in range(CHAT_BURST - 3):
        table.run(SendChat("p1", "more", T0 + 10 + index))
    refused(table, SendChat("p1", "too many", T0 + 20), ChatRateLimited)
