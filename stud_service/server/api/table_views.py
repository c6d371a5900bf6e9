"""What a caller sees of a table: its view as a player or an observer, and the ``Table`` resource.

The latest version's messages are built once and shared (:mod:`stud_service.server.api.replies`): copy
them into a reply, never change them. An older version's (a retried write's reply) is built again.
"""

from __future__ import annotations

from stud_service.auth import Principal, Role
from stud_service.engine import TableState
from stud_service.server.api.convert import table_to_proto, view_to_proto
from stud_service.server.proto_gen import table_pb2
from stud_service.server.tables.live import LiveTable, TableAt


def table_view(
    live: LiveTable,
    principal: Principal,
    state: TableState | None = None,
    version: int | None = None,
) -> table_pb2.TableView:
    """The caller's view of the table (at ``version``, whose state is ``state``; default the
    latest). Shared with other calls: copy it into a reply, never change it."""
    viewer = None if principal.role is Role.AUDITOR else principal.player_id
    state = state if state is not None else live.state
    version = version if version is not None else live.version
    last_result, commitment = live.last_result, live.commitment
    if version != live.version:  # an older version's result and commitment are not kept
        return view_to_proto(
            live.table_id, state, version, viewer, last_result, commitment, created_ms=live.created_ms
        )

    def build_public() -> table_pb2.TableView:
        table = table_resource(live, state, version)
        return view_to_proto(live.table_id, state, version, None, last_result, commitment, table=table)

    public = live.replies.view(None, version, build_public)
    if viewer is None:
        return public
    # A player's view is the observers' one (built once per version) plus the player's own share.
    return live.replies.view(
        viewer, version, lambda: view_to_proto(live.table_id, state, version, viewer, public=public)
    )


def view_at(at: TableAt, principal: Principal) -> table_pb2.TableView:
    """The caller's view of the table as a write left it (a retry: as its first call did)."""
    if at.version == at.live.version:
        return table_view(at.live, principal)
    viewer = None if principal.role is Role.AUDITOR else principal.player_id
    return view_to_proto(
        at.live.table_id, at.state, at.version, viewer, at.last_result, at.commitment,
        created_ms=at.live.created_ms,
    )


def table_resource(live: LiveTable, state: TableState, version: int) -> table_pb2.Table:
    """The table resource at ``version`` (shared: copy it, never change it)."""
    if version != live.version:
        return table_to_proto(live.table_id, state, version, live.created_ms)
    return live.replies.table(version, lambda: table_to_proto(live.table_id, state, version, live.created_ms))
