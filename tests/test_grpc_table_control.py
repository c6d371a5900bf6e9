"""Stopping a game (RULES.md §12) through the real service, over the gRPC port and the web port (Connect with
JSON; the JSON routes are called in test_web_routes): an operator pauses, resumes, voids and closes a table,
changes its settings between hands; the lobby and every view say so and why; the access log and the table's
log record each command; a voided hand's history says it was voided, reveals no card and verifies; money
tables reconcile after voids and closing; every refusal has its reason and appends nothing."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
from google.protobuf import duration_pb2
from grpc_fixtures import TRANSPORTS, service_under_test, table_spec, wait_for_turn
from test_audit_grpc import play_out

from stud_service.auth import Role
from stud_service.bots import StudClient
from stud_service.bots.client import error_reason, events_of
from stud_service.server.api.errors import error_info
from stud_service.server.proto_gen import audit_pb2, audit_service_pb2, events_pb2, table_pb2
from stud_service.server.tables.settings import RuntimeSettings

pytestmark = pytest.mark.asyncio(loop_scope="session")

BUY_IN = 5_000
NO_DEAL_SECONDS = 1.5  # thirty times the test server's pause between hands: a paused table would have dealt
OPS = "house"


async def refusal(call) -> tuple[grpc.StatusCode, str | None, dict[str, str]]:  # type: ignore[no-untyped-def]
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    info = error_info(caught.value)
    return caught.value.code(), error_reason(caught.value), dict(info.metadata) if info else {}


async def seated_table(operator: StudClient, make_player, *players: str, **fields) -> str:  # type: ignore[no-untyped-def]
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec(**fields))
    for seat, player in enumerate(players, start=1):
        await make_player(player).sit_down(table_id, seat, BUY_IN)
    return table_id


async def lobby_entry(client: StudClient, table_id: str) -> table_pb2.Table:
    page = await client.list_tables(page_size=1000)
    while True:
        found = next((table for table in page.tables if table.name == f"tables/{table_id}"), None)
        if found is not None or not page.next_page_token:
            assert found is not None, f"{table_id} is not in the lobby"
            return found
        page = await client.list_tables(page_size=1000, page_token=page.next_page_token)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_pause_void_resume_and_close_a_table_as_the_rule_book_says(
    grpc_service, operator, make_player, transport
) -> None:
    ann, ben = (f"{name}-{uuid.uuid4().hex[:6]}" for name in ("ann", "ben"))
    table_id = await seated_table(operator, make_player, ann, ben)
    players = [make_player(ann), make_player(ben)]
    spectator = make_player("spectator")
    stream = grpc_service.client("watcher").watch(table_id, include_views=False, batch_events=True)
    first = await stream.read()
    _, view = await wait_for_turn(players, table_id)
    hand = view.hand.hand_number

    # Paused: the running hand plays on (its clocks too), no new hand is dealt.
    paused = await operator.pause_table(table_id, "end of the session")
    assert paused.status == table_pb2.TABLE_STATUS_PAUSED and paused.status_reason == "end of the session"
    entry = await lobby_entry(spectator, table_id)
    assert (entry.status, entry.status_reason) == (table_pb2.TABLE_STATUS_PAUSED, "end of the session")
    assert (await spectator.view(table_id)).HasField("action_deadline")
    await play_out(players, table_id, hand)
    await asyncio.sleep(NO_DEAL_SECONDS)
    assert (await spectator.view(table_id)).table.hands_started == hand

    # Resumed: it deals again; that hand is voided (the table paused first, so its view stays to be read).
    resumed = await operator.resume_table(table_id, "session extended")
    assert resumed.status == table_pb2.TABLE_STATUS_OPEN and resumed.status_reason == "session extended"
    mover, turn = await wait_for_turn(players, table_id)
    assert turn.hand.hand_number == hand + 1
    bring_in = next(a for a in turn.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
    await mover.act(table_id, turn.viewer_seat, bring_in.type, bring_in.amount, turn.turn)
    await operator.pause_table(table_id, "fault on the table")
    voided = await operator.void_hand(table_id, hand + 1, "a card was dealt twice on screen")
    last = voided.last_voided_hand
    assert (last.name, last.hand_number, last.reason, last.automatic) == (
        f"tables/{table_id}/hands/{hand + 1}", hand + 1, "a card was dealt twice on screen", False)
    after = await players[0].view(table_id)
    assert after.hand.complete and after.hand.voided and not after.hand.awards
    assert after.hand.void_reason == "a card was dealt twice on screen"
    # Every chip back: each stack as the hand found it, before its antes; nobody's cards shown.
    started = await hand_started(grpc_service, table_id, hand + 1)
    assert {seat.seat: seat.stack for seat in after.seats} == {
        player.seat: player.starting_stack for player in started.players}
    assert not any(seat.shown or seat.down_cards for seat in after.seats)
    entry = await lobby_entry(spectator, table_id)
    assert entry.last_voided_hand.reason == "a card was dealt twice on screen"

    # The stream said so: each command's event with who and why, the void's without a card.
    seen: list[events_pb2.TableEvent] = []
    while not any(event.HasField("hand_voided") for event in seen):
        seen.extend(events_of(await asyncio.wait_for(stream.read(), timeout=30)))
    seen.extend(events_of(await asyncio.wait_for(stream.read(), timeout=30)) if seen[-1].type != "HandEnded"
                else ())
    stream.cancel()
    assert first.view.version > 0
    said = [(e.type, getattr(e, e.WhichOneof("event")).reason) for e in seen
            if e.type in ("TablePaused", "TableResumed", "HandVoided")]
    assert said == [("TablePaused", "end of the session"), ("TableResumed", "session extended"),
                    ("TablePaused", "fault on the table"), ("HandVoided", "a card was dealt twice on screen")]
    voided_event = next(e.hand_voided for e in seen if e.HasField("hand_voided"))
    assert (voided_event.operator, voided_event.automatic, voided_event.hand) == (OPS, False, hand + 1)
    assert sum(returned.amount for returned in voided_event.returned) > 0
    ended = next(e.hand_ended for e in seen if e.HasField("hand_ended") and e.hand_ended.hand == hand + 1)
    assert not ended.pots and not ended.shown and ended.rake == 0

    # Closed: everyone leaves with their stack; nobody may sit down again.
    await operator.resume_table(table_id, "fixed")
    closed = await operator.close_table(table_id, "table retired")
    assert closed.status == table_pb2.TABLE_STATUS_CLOSED and closed.status_reason == "table retired"
    await asyncio.sleep(0)
    final = await spectator.view(table_id)
    if final.seats:  # a hand had been dealt: its players leave when it ends
        await play_out(players, table_id, final.hand.hand_number)
        final = await spectator.view(table_id)
    assert not final.seats and final.table.status == table_pb2.TABLE_STATUS_CLOSED
    code, reason, _ = await refusal(make_player(ann).sit_down(table_id, 1, BUY_IN))
    assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TABLE_CLOSED")


async def test_a_voided_hand_s_history_verifies_says_it_was_voided_and_shows_no_card(
    grpc_service, operator, make_player
) -> None:
    ann, ben, cat = (f"{name}-{uuid.uuid4().hex[:6]}" for name in ("ann", "ben", "cat"))
    table_id = await seated_table(operator, make_player, ann, ben, cat)
    players = [make_player(ann), make_player(ben), make_player(cat)]
    _, view = await wait_for_turn(players, table_id)
    hand = view.hand.hand_number
    await operator.pause_table(table_id, "investigating")
    await operator.void_hand(table_id, hand, "fault")
    name = f"tables/{table_id}/hands/{hand}"
    auditor = grpc_service.client("auditor", Role.AUDITOR)
    verified = await auditor.audit.VerifyHand(audit_service_pb2.VerifyHandRequest(name=name),
                                              metadata=auditor.metadata)
    assert verified.passed, verified
    stars = await auditor.audit.ExportHandHistory(audit_service_pb2.ExportHandHistoryRequest(
        name=name, format=audit_service_pb2.HISTORY_FORMAT_POKERSTARS), metadata=auditor.metadata)
    assert f"Hand voided by {OPS}: fault\nHand cancelled\n*** SUMMARY ***\n" in stars.text
    assert "Rake 0" in stars.text and "collected" not in stars.text and "*** SHOW DOWN ***" not in stars.text
    phh = await auditor.audit.ExportHandHistory(audit_service_pb2.ExportHandHistoryRequest(
        name=name, format=audit_service_pb2.HISTORY_FORMAT_PHH), metadata=auditor.metadata)
    assert "_voided = true" in phh.text and '_void_reason = "fault"' in phh.text
    assert f'_voided_by = "{OPS}"' in phh.text
    # A player's own history: their own down cards only; and no public reveal of the seed, ever.
    mine = await players[0].audit.GetHand(audit_service_pb2.GetHandRequest(name=name),
                                          metadata=players[0].metadata)
    theirs = [e.card_dealt for e in mine.events if e.HasField("card_dealt") and not e.card_dealt.face_up
              and e.card_dealt.seat != 1]
    assert theirs and all(card.hidden for card in theirs) and not mine.server_seed
    kinds = [event.type for event in mine.events]
    assert kinds[-2:] == ["HandVoided", "HandEnded"] and "HandShown" not in kinds


async def test_settings_change_between_hands_as_events(grpc_service, operator, make_player) -> None:
    table_id = await seated_table(operator, make_player, "solo-" + uuid.uuid4().hex[:6])
    seconds = duration_pb2.Duration
    changed = await operator.update_table_settings(
        table_id, "beginners' table", display_name="Beginners", action_clock=seconds(seconds=45),
        interrupted_hand_void_time=seconds(seconds=300))
    assert changed.display_name == "Beginners" and changed.action_clock.seconds == 45
    assert changed.interrupted_hand_void_time.seconds == 300
    events = await table_events(grpc_service, table_id)
    settings = next(e.table_settings_changed for e in events if e.HasField("table_settings_changed"))
    assert list(settings.fields) == ["display_name", "action_clock", "interrupted_hand_void_time"]
    assert (settings.operator, settings.reason) == (OPS, "beginners' table")
    assert settings.settings.action_clock.seconds == 45 and settings.previous.action_clock.seconds == 30
    assert settings.previous.interrupted_hand_void_time.seconds == 0
    head = await grpc_service.store.head(f"tables/{table_id}")
    same = await operator.update_table_settings(table_id, "again", display_name="Beginners")
    assert same.version == head == await grpc_service.store.head(f"tables/{table_id}")


async def table_events(grpc_service, table_id: str) -> list[events_pb2.TableEvent]:  # type: ignore[no-untyped-def]
    """The table's events so far, as a watch resumed after its first event sends them."""
    head = await grpc_service.store.head(f"tables/{table_id}")
    stream = grpc_service.client("watcher").watch(table_id, after_version=1, batch_events=True)
    events: list[events_pb2.TableEvent] = []
    while not events or events[-1].version < head:
        events.extend(events_of(await asyncio.wait_for(stream.read(), timeout=30)))
    stream.cancel()
    return events


async def hand_started(grpc_service, table_id: str, hand: int):  # type: ignore[no-untyped-def]
    """The HandStarted event of ``hand``."""
    events = await table_events(grpc_service, table_id)
    return next(e.hand_started for e in events if e.HasField("hand_started") and e.hand_started.hand == hand)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_refusals_have_their_reasons_and_append_nothing(
    grpc_service, operator, make_player, transport
) -> None:
    player = make_player("nobody-" + uuid.uuid4().hex[:6])
    auditor = grpc_service.client("auditor", Role.AUDITOR, transport)
    empty = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(empty, table_spec())
    ann, ben = (f"{name}-{uuid.uuid4().hex[:6]}" for name in ("ann", "ben"))
    playing = await seated_table(operator, make_player, ann, ben)
    _, view = await wait_for_turn([make_player(ann), make_player(ben)], playing)
    closed = await seated_table(operator, make_player)
    await operator.close_table(closed, "retired")
    ghost = f"t-{uuid.uuid4().hex[:12]}"
    clock = duration_pb2.Duration
    denied, failed, invalid = (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.FAILED_PRECONDITION,
                               grpc.StatusCode.INVALID_ARGUMENT)
    hand = view.hand.hand_number
    cases = [
        (player.pause_table(empty, "why"), denied, "OPERATOR_ONLY", None),
        (auditor.close_table(empty, "why"), denied, "OPERATOR_ONLY", None),
        (player.void_hand(playing, hand, "why"), denied, "OPERATOR_ONLY", None),
        (operator.pause_table(ghost, "why"), grpc.StatusCode.NOT_FOUND, "NO_TABLE", None),
        (operator.void_hand(empty, 1, "why"), failed, "HAND_NOT_RUNNING", None),
        (operator.void_hand(playing, hand + 1, "why"), failed, "HAND_NOT_RUNNING", None),
        (operator.resume_table(empty, "why"), failed, "TABLE_NOT_PAUSED", None),
        (operator.pause_table(closed, "why"), failed, "TABLE_CLOSED", None),
        (operator.close_table(closed, "why"), failed, "TABLE_CLOSED", None),
        (operator.pause_table(empty, ""), invalid, "MALFORMED_REQUEST", "reason"),
        (operator.pause_table(empty, "nul \x00"), invalid, "MALFORMED_REQUEST", "reason"),
        (operator.pause_table(empty, "x" * 501), invalid, "MALFORMED_REQUEST", "reason"),
        (operator.update_table_settings(empty, "why"), invalid, "MALFORMED_REQUEST", None),
        (operator.update_table_settings(empty, "why", action_clock=clock(seconds=0)), invalid,
         "MALFORMED_REQUEST", "action_clock"),
        (operator.update_table_settings(empty, "why", action_clock=clock(seconds=86_401)), invalid,
         "INVALID_CONFIG", "action_clock"),
        (operator.update_table_settings(empty, "why", interrupted_hand_void_time=clock(seconds=30)), invalid,
         "INVALID_CONFIG", "interrupted_hand_void_time"),
        (operator.update_table_settings(playing, "why", display_name="x"), failed, "HAND_RUNNING", None),
        (operator.update_table_settings(closed, "why", display_name="x"), failed, "TABLE_CLOSED", None),
    ]
    heads = {table: await grpc_service.store.head(f"tables/{table}") for table in (empty, playing, closed)}
    for call, code, reason, field in cases:
        got = await refusal(call)
        assert got[:2] == (code, reason), (got, reason)
        if field is not None:
            assert got[2].get("field") == field, got
    await operator.pause_table(empty, "once")
    heads[empty] += 1
    assert (await refusal(operator.pause_table(empty, "twice")))[:2] == (
        grpc.StatusCode.FAILED_PRECONDITION, "TABLE_PAUSED")
    for table, head in heads.items():
        assert await grpc_service.store.head(f"tables/{table}") == head, table


async def test_operators_and_auditors_calls_are_in_the_access_log(grpc_service, operator) -> None:
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    await operator.create_table(table_id, table_spec())
    await operator.pause_table(table_id, "audit trail")
    auditor_id = "auditor-" + uuid.uuid4().hex[:6]
    auditor = grpc_service.client(auditor_id, Role.AUDITOR)
    await refusal(auditor.resume_table(table_id, "not mine"))
    records = await auditor.audit.ListAccessRecords(
        audit_service_pb2.ListAccessRecordsRequest(page_size=1000), metadata=auditor.metadata)
    mine = [(r.principal_id, r.method, r.resource, r.outcome) for r in records.access_records
            if r.resource == f"tables/{table_id}"]
    assert (OPS, "/stud.v1.TableService/PauseTable", f"tables/{table_id}",
            audit_pb2.ACCESS_OUTCOME_ALLOWED) in mine
    refused_record = next(r for r in records.access_records
                          if r.principal_id == auditor_id and r.method.endswith("/ResumeTable"))
    assert refused_record.refusal_reason == "OPERATOR_ONLY"


async def test_a_money_table_reconciles_after_a_void_and_closing(make_database) -> None:
    """Buy-ins debited, the voided hand's chips back, everyone paid out when the table closes: the books
    balance to the unit."""
    url = await make_database(migrated=True)
    async with service_under_test(url, RuntimeSettings(next_hand_pause=0.05)) as service:
        operator = service.client(OPS, Role.OPERATOR)
        table_id = "money-void"
        await operator.create_table(table_id, table_spec(play_money=False, currency_code="USD"))
        players = []
        for seat, name in enumerate(("ann", "ben", "cat"), start=1):
            await operator.deposit(name, 20_000)
            players.append(service.client(name))
            await players[-1].sit_down(table_id, seat, BUY_IN)
        for _ in range(2):
            mover, view = await wait_for_turn(players, table_id)
            legal = next(a for a in view.legal_actions if a.type == table_pb2.ACTION_TYPE_BRING_IN)
            await mover.act(table_id, view.viewer_seat, legal.type, legal.amount, view.turn)
            await operator.void_hand(table_id, view.hand.hand_number, "fault")
        await operator.close_table(table_id, "closing")
        spectator = service.client("spectator")
        final = await spectator.view(table_id)
        if final.seats:
            await play_out(players, table_id, final.hand.hand_number)
        for name in ("ann", "ben", "cat"):
            account = await operator.account(name)
            assert not account.at_tables
        balances = sum([(await operator.account(name)).balance for name in ("ann", "ben", "cat")])
        auditor = service.client("auditor", Role.AUDITOR)
        books = await auditor.audit.ReconcileMoney(audit_service_pb2.ReconcileMoneyRequest(),
                                                   metadata=auditor.metadata)
        assert books.balanced and books.discrepancy_count == 0, books
        (usd,) = books.currencies
        assert usd.chips_at_tables == 0 and balances + usd.rake_taken == 60_000


async def test_create_table_with_an_interrupted_hand_limit(operator, grpc_service) -> None:
    table_id = f"t-{uuid.uuid4().hex[:12]}"
    spec = table_spec(action_clock=20, interrupted_hand_void_time=duration_pb2.Duration(seconds=120))
    created = await operator.create_table(table_id, spec)
    assert created.interrupted_hand_void_time.seconds == 120 and created.status == table_pb2.TABLE_STATUS_OPEN
    for seconds, reason in ((20, "INVALID_CONFIG"), (86_401, "INVALID_CONFIG"), (-1, "MALFORMED_REQUEST")):
        bad = table_spec(action_clock=20, interrupted_hand_void_time=duration_pb2.Duration(seconds=seconds))
        code, got, metadata = await refusal(operator.create_table(f"t-{uuid.uuid4().hex[:12]}", bad))
        assert (code, got, metadata.get("field")) == (
            grpc.StatusCode.INVALID_ARGUMENT, reason, "table.interrupted_hand_void_time")
    plain = await operator.create_table(f"t-{uuid.uuid4().hex[:12]}", table_spec())
    assert not plain.HasField("interrupted_hand_void_time")



async def test_a_voided_hand_stays_sealed_at_rest_and_its_seed_is_never_made_public(make_database) -> None:
    """RULES.md §12, cards of a voided hand are never shown: in the log its face-down cards stay sealed (no
    event of the void carries one), and the operator's delayed public reveal of seeds skips it, while a hand
    played out is revealed as usual."""
    url = await make_database(migrated=True)
    settings = RuntimeSettings(next_hand_pause=0.05)
    async with service_under_test(url, settings, reveal_seeds_after=0) as service:
        operator = service.client(OPS, Role.OPERATOR)
        await operator.create_table("sealed-void", table_spec())
        players = [service.client(name) for name in ("ann", "ben")]
        for seat, player in enumerate(players, start=1):
            await player.sit_down("sealed-void", seat, BUY_IN)
        _, view = await wait_for_turn(players, "sealed-void")
        played = view.hand.hand_number
        await play_out(players, "sealed-void", played)
        _, view = await wait_for_turn(players, "sealed-void")
        await operator.pause_table("sealed-void", "fault")
        await operator.void_hand("sealed-void", view.hand.hand_number, "fault")
        async with service.store.pool.connection() as conn:
            cursor = await conn.execute(
                "SELECT type, payload FROM events WHERE stream_id = %s AND hand = %s ORDER BY version",
                ("tables/sealed-void", view.hand.hand_number))
            rows = await cursor.fetchall()
        down = [payload for kind, payload in rows if kind == "CardDealt" and not payload["face_up"]]
        assert down and all(payload["card"] is None and "sealed" in payload for payload in down)
        assert [kind for kind, _ in rows][-2:] == ["HandVoided", "HandEnded"]
        assert rows[-1][1].get("server_seed") is None and "card" not in str(rows[-2][1])
        stranger = service.client("stranger")
        for hand, revealed in ((played, True), (view.hand.hand_number, False)):
            reply = await stranger.audit.VerifyShuffle(
                audit_service_pb2.VerifyShuffleRequest(name=f"tables/sealed-void/hands/{hand}"),
                metadata=stranger.metadata)
            assert bool(reply.server_seed) is revealed and reply.HasField("public_reveal_time") is revealed
