"""The table chat end to end (docs/chat.md), over the gRPC port and the web port: messages reach every
watcher, the refusals each name their reason and append nothing (huge, NUL, a bidirectional override, a
flood, a card during a hand, a muted player, a spectator where only players write), operators mute and
delete (recorded in the access log and on the table), and a hand's exported history holds what was said."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
from grpc_fixtures import TRANSPORTS, wait_for_turn

from stud_service.auth import Role
from stud_service.bots.client import error_reason, events_of
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_service_pb2, table_pb2
from stud_service.server.tables.live import stream_id_for

pytestmark = pytest.mark.parametrize("transport", TRANSPORTS)
WAIT = 60.0


async def next_of(stream: Any, kind: str, timeout: float = WAIT) -> Any:
    async def read() -> Any:
        async for message in stream:
            for event in events_of(message):
                if event.type == kind:
                    return getattr(event, event.WhichOneof("event"))
        raise AssertionError("the watch ended")

    return await asyncio.wait_for(read(), timeout)


async def refused(grpc_service, table_id: str, call: Any) -> grpc.aio.AioRpcError:
    """``call`` refused, with the table's log unchanged."""
    before = await grpc_service.store.head(stream_id_for(table_id))
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    assert await grpc_service.store.head(stream_id_for(table_id)) == before
    return caught.value


async def test_a_message_reaches_every_watcher(new_table, make_player) -> None:
    table_id = await new_table()
    alice, bob, railbird = make_player("alice"), make_player("bob"), make_player("railbird")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 5, 5_000)
    streams = [bob.watch(table_id), railbird.watch(table_id)]
    for stream in streams:  # the first message: the view, so the watch has begun
        await asyncio.wait_for(anext(aiter(stream)), WAIT)
    reply = await alice.send_chat(table_id, "good luck, all 🙂")
    assert reply.number >= 1 and reply.version > 0
    for stream in streams:
        said = await next_of(stream, "ChatMessageSent")
        assert (said.number, said.player_id, said.seat, said.text) == (reply.number, "alice", 1,
                                                                        "good luck, all 🙂")
        stream.cancel()


async def test_a_retried_message_is_sent_once(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    alice = make_player("alice")
    await alice.sit_down(table_id, 1, 5_000)
    first = await alice.send_chat(table_id, "hello", request_id="chat-1")
    again = await alice.send_chat(table_id, "hello", request_id="chat-1")
    assert (again.number, again.version) == (first.number, first.version)
    assert await grpc_service.store.head(stream_id_for(table_id)) == first.version


@pytest.mark.parametrize(("text", "fragment"), [
    ("x" * 100_000, "at most 200 characters"),
    ("nul\x00byte", "U+0000"),
    ("\u202etxt.exe", "U+202E"),
    ("two\nlines", "U+000A"),
    ("", "needs some text"),
])
async def test_hostile_text_is_refused_with_its_reason_and_nothing_appended(
    grpc_service, new_table, make_player, text: str, fragment: str
) -> None:
    table_id = await new_table()
    alice = make_player("alice")
    await alice.sit_down(table_id, 1, 5_000)
    error = await refused(grpc_service, table_id, alice.send_chat(table_id, text))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error_reason(error) == "CHAT_TEXT_REFUSED"
    assert fragment in (error.details() or "")
    assert dict(error_info(error).metadata) == {"max_chars": "200"}


async def test_a_flood_is_refused_once_the_burst_is_spent(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    await wait_for_turn([alice, bob], table_id)  # dealt: the table then waits for a bring-in (a 30 s clock)
    for index in range(5):
        await alice.send_chat(table_id, f"spam {index}")
    error = await refused(grpc_service, table_id, alice.send_chat(table_id, "spam 5"))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_reason(error) == "CHAT_RATE_LIMITED"
    assert 0 < int(error_info(error).metadata["retry_after_ms"]) <= 10_000
    await bob.send_chat(table_id, "the others still talk")


async def test_who_may_write(grpc_service, new_table, make_player, transport) -> None:
    table_id = await new_table()
    error = await refused(grpc_service, table_id, make_player("railbird").send_chat(table_id, "hi"))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert error_reason(error) == "CHAT_SPECTATORS_SILENT"
    auditor = grpc_service.client("auditor", Role.AUDITOR, transport)
    error = await refused(grpc_service, table_id, auditor.send_chat(table_id, "hi"))
    assert error_reason(error) == "AUDITOR_READ_ONLY"
    open_table = await new_table(chat=table_pb2.ChatRules(spectators_write=True))
    said = await make_player("railbird").send_chat(open_table, "go go go")
    assert said.number == 1


async def test_no_cards_while_a_hand_runs(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    await wait_for_turn([alice, bob], table_id)
    error = await refused(grpc_service, table_id, alice.send_chat(table_id, "I have Kd"))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION and error_reason(error) == "CHAT_NAMES_CARD"


async def test_an_operator_mutes_and_deletes_and_both_are_recorded(
    grpc_service, new_table, make_player, operator, transport
) -> None:
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    await wait_for_turn([alice, bob], table_id)  # dealt: the table then waits for a bring-in (a 30 s clock)
    first = await bob.view(table_id)
    rude = await alice.send_chat(table_id, "something rude")
    # Players may not moderate.
    error = await refused(grpc_service, table_id, bob.mute_chat_player(table_id, "alice", "rude"))
    assert error_reason(error) == "OPERATOR_ONLY"
    await operator.mute_chat_player(table_id, "alice", "abusive language")
    error = await refused(grpc_service, table_id, alice.send_chat(table_id, "let me talk"))
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED and error_reason(error) == "CHAT_MUTED"
    assert (await alice.view(table_id)).chat_muted and not (await bob.view(table_id)).chat_muted
    await operator.delete_chat_message(table_id, rude.number, "abusive language")
    error = await refused(grpc_service, table_id, operator.delete_chat_message(table_id, 99, "no such"))
    assert error.code() == grpc.StatusCode.NOT_FOUND and error_reason(error) == "CHAT_MESSAGE_NOT_FOUND"
    # A watch resumed from before the message shows it deleted, and the operator's name to nobody.
    stream = bob.watch(table_id, after_version=first.version)
    said = await next_of(stream, "ChatMessageSent")
    muted = await next_of(stream, "ChatMuteSet")
    deleted = await next_of(stream, "ChatMessageDeleted")
    stream.cancel()
    assert (said.number, said.deleted, said.text) == (rude.number, True, "")
    assert (muted.player_id, muted.muted, muted.by, muted.reason) == ("alice", True, "", "abusive language")
    assert (deleted.number, deleted.by) == (rude.number, "")
    auditor = grpc_service.client("auditor", Role.AUDITOR, transport)
    stream = auditor.watch(table_id, after_version=first.version)
    assert (await next_of(stream, "ChatMessageSent")).text == "something rude"
    assert (await next_of(stream, "ChatMuteSet")).by == "house"
    stream.cancel()
    await operator.mute_chat_player(table_id, "alice", "apologised", muted=False)
    await alice.send_chat(table_id, "sorry")
    records = await access_records(grpc_service, table_id)
    assert {"MuteChatPlayer", "DeleteChatMessage"} <= records


async def access_records(grpc_service, table_id: str) -> set[str]:
    async with grpc_service.store.pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT payload->>'method' FROM events WHERE starts_with(stream_id, 'access/')"
            " AND payload->>'resource' = %s", (f"tables/{table_id}",))
        return {str(method).rpartition("/")[2] for (method,) in await cursor.fetchall()}


async def test_a_hands_history_holds_what_was_said_during_it(grpc_service, new_table, make_player) -> None:
    table_id = await new_table()
    alice, bob = make_player("alice"), make_player("bob")
    await alice.sit_down(table_id, 1, 5_000)
    await bob.sit_down(table_id, 2, 5_000)
    acting, view = await wait_for_turn([alice, bob], table_id)
    await alice.send_chat(table_id, "thinking...")
    hand = view.hand.hand_number
    other = bob if acting is alice else alice
    for player in (acting, other):  # fold the hand away: it ends
        turn_view = await player.view(table_id)
        if turn_view.legal_actions and turn_view.hand.hand_number == hand:
            fold = next((a for a in turn_view.legal_actions if a.type == table_pb2.ACTION_TYPE_FOLD), None)
            choice = fold or turn_view.legal_actions[0]
            await player.act(table_id, turn_view.viewer_seat, choice.type, choice.amount, turn_view.turn)
    text = await exported(grpc_service, alice, table_id, hand)
    assert 'alice said, "thinking..."' in text


async def exported(grpc_service, client: Any, table_id: str, hand: int) -> str:
    deadline = asyncio.get_running_loop().time() + WAIT
    while True:
        try:
            reply = await client.audit.ExportHandHistory(
                audit_service_pb2.ExportHandHistoryRequest(name=f"tables/{table_id}/hands/{hand}",
                                                           format=audit_service_pb2.HISTORY_FORMAT_POKERSTARS),
                metadata=client.metadata)
            return reply.text
        except grpc.aio.AioRpcError as error:
            if error_reason(error) != "HAND_STILL_RUNNING" or asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.1)
