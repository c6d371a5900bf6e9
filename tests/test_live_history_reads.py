"""Reading a live table's history never stops its play (a defect found from outside: opening two older
hands of a running table pushed the running hand's data key out of the sealer's cache, and the table froze).

A real server and PostgreSQL: bots play a table while an auditor opens its older hands over and over
(ReplayHand in full, VerifyShuffle and both exports), each of which opens sealed events of those hands.
"""

from __future__ import annotations

import asyncio

from grpc_fixtures import TOKEN_SECRET

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot
from stud_service.bots.client import StudClient
from stud_service.server.proto_gen import audit_service_pb2, audit_service_pb2_grpc

HANDS_BEFORE = 4  # older hands to read: more than the sealer keeps keys for
HANDS_WHILE_READING = 8


async def read_history(audit: audit_service_pb2_grpc.AuditServiceStub, table_id: str, hands: int,
                       stop: asyncio.Event) -> int:
    """Open every older hand, every way an auditor can, until ``stop``; how many reads were made."""
    metadata = [("authorization", f"Bearer {mint_token(TOKEN_SECRET, 'inspector', Role.AUDITOR)}")]
    reads = 0
    while not stop.is_set():
        for hand in range(1, hands + 1):
            name = f"tables/{table_id}/hands/{hand}"
            await audit.ReplayHand(audit_service_pb2.ReplayHandRequest(
                name=name, view=audit_service_pb2.REPLAY_VIEW_FULL), metadata=metadata)
            await audit.VerifyShuffle(audit_service_pb2.VerifyShuffleRequest(name=name), metadata=metadata)
            for history_format in (audit_service_pb2.HISTORY_FORMAT_PHH,
                                   audit_service_pb2.HISTORY_FORMAT_POKERSTARS):
                await audit.ExportHandHistory(audit_service_pb2.ExportHandHistoryRequest(
                    name=name, format=history_format), metadata=metadata)
            reads += 4
    return reads


async def test_opening_older_hands_of_a_live_table_never_stops_its_play(
    grpc_service, new_table, make_player
):
    """Reading history never changes what the live table can do: while an auditor keeps opening its older
    hands, the table deals and plays hand after hand, and no background task of it fails."""
    table_id = await new_table(max_seats=4)
    names = ["ann", "bo", "cy"]
    bots = [Bot(make_player(name), table_id, seat, seed=seat) for seat, name in enumerate(names, 1)]
    for bot in bots:
        await bot.sit(40_000)  # the most: nobody goes broke in these few hands
    await asyncio.wait_for(asyncio.gather(*(bot.run(HANDS_BEFORE) for bot in bots)), timeout=120)

    stop = asyncio.Event()
    audit = audit_service_pb2_grpc.AuditServiceStub(grpc_service.channel)
    reader = asyncio.ensure_future(read_history(audit, table_id, HANDS_BEFORE, stop))
    for bot in bots:
        bot.stats.hands_seen = 0
    try:
        await asyncio.wait_for(asyncio.gather(*(bot.run(HANDS_WHILE_READING) for bot in bots)), timeout=120)
    finally:
        stop.set()
    reads = await asyncio.wait_for(reader, timeout=60)
    assert reads >= 4 * HANDS_BEFORE  # the history was read in full at least once while the table played
    view = await StudClient(grpc_service.channel,
                            mint_token(TOKEN_SECRET, "rail", Role.PLAYER)).view(table_id)
    assert view.hand.hand_number >= HANDS_BEFORE + HANDS_WHILE_READING
