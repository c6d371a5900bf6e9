"""Reply parts shared between calls (DESIGN.md "Hidden information": each viewer gets only its share):
event text and times encoded the way the standard encoders do, one view per viewer and version."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from google.protobuf import timestamp_pb2

from stud_service.server.proto_gen import table_pb2
from stud_service.server.replies import ReplyCache, event_text, timestamp


def test_event_text_is_the_standard_sorted_compact_utf8_json() -> None:
    payloads = [
        {"type": "PlayerActed", "seat": 3, "amount": 400, "hand": 7},
        {"type": "SeatTaken", "player_id": "zoë ✓", "note": 'quote " and \\ and \n tab\t'},
        {"type": "Big", "n": 2**70, "nested": {"b": [1, None, True], "a": {}}},
    ]
    for payload in payloads:
        expected = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert event_text(payload) == expected


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
