"""Reply parts shared between calls (DESIGN.md "Hidden information": each viewer gets only its share):
events converted once, times encoded the way protobuf does, one view per viewer and version."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf import timestamp_pb2

from stud_service.server.api.replies import ReplyCache, timestamp
from stud_service.server.proto_gen import events_pb2, table_pb2


def test_a_public_event_is_converted_once_per_version() -> None:
    cache = ReplyCache()
    moment = datetime(2026, 11, 30, 4, 15, 12, 123456, tzinfo=UTC)
    payload = {"type": "PlayerSeated", "v": 1, "player_id": "zoë ✓", "seat": 3, "buy_in": 2**40,
               "at_ms": 1_500}
    first = cache.public_event(7, payload, moment)
    assert cache.public_event(7, payload, moment) is first
    assert first.player_seated == events_pb2.PlayerSeated(
        player_id="zoë ✓", seat=3, buy_in=2**40, time={"seconds": 1, "nanos": 500_000_000}
    )
    assert (first.version, first.type, first.record_time) == (7, "PlayerSeated", timestamp(moment))


def test_timestamp_matches_protobufs_own_conversion() -> None:
    for moment in (
        datetime(2026, 11, 30, 4, 15, 12, 123456, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime(2030, 1, 1, tzinfo=UTC),
    ):
        reference = timestamp_pb2.Timestamp()
        reference.FromDatetime(moment)
        assert timestamp(moment) == reference


def test_one_view_per_viewer_and_version_and_none_for_another() -> None:
    cache = ReplyCache()
    built: list[tuple[str | None, int]] = []

    def build(viewer: str | None, version: int):
        def make() -> table_pb2.TableView:
            built.append((viewer, version))
            return table_pb2.TableView(version=version)

        return make

    first = cache.view("ann", 5, build("ann", 5))
    assert cache.view("ann", 5, build("ann", 5)) is first
    other = cache.view("ben", 5, build("ben", 5))
    assert other is not first
    assert cache.view("ann", 6, build("ann", 6)).version == 6
    cache.view("ann", 5, build("ann", 5))  # an older version is built again, not taken from the cache
    assert built == [("ann", 5), ("ben", 5), ("ann", 6), ("ann", 5)]
    assert cache.view("ann", 6, build("ann", 6)).version == 6  # the newest stays cached
    assert len(built) == 4
