"""Every hand of a tournament as one file: PokerStars text (the hands one after another, two blank lines
apart, as the room's files hold them) or PHH's multi-hand form (``.phhs``: each hand a TOML table ``[n]``,
numbered from 1, which PokerKit's ``HandHistory.loads_all`` reads).  The hands are in the order the
tournament folded them (its ``TableHandEnded`` events); a player's file holds only the hands they were
dealt into, as they saw them.
"""

from __future__ import annotations

from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import load_hand
from stud_service.audit.tournament_log import TournamentInfo, folded_hands, load_tournament
from stud_service.store import EventStore

FORMATS = ("phh", "pokerstars")


async def tournament_histories(
    store: EventStore, tournament_id: str, fmt: str, player_id: str | None = None
) -> str:
    """The tournament's hands in ``fmt`` (``phh`` or ``pokerstars``); NoTournament, HandNotFound."""
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    payloads = [stored.payload for stored in await load_tournament(store, tournament_id)]
    info = TournamentInfo.from_payloads(payloads)
    texts = []
    for table_id, hand in folded_hands(payloads):
        record = await load_hand(store, table_id, hand)
        if player_id is not None and record.seat_of(player_id) is None:
            continue
        if fmt == "phh":
            texts.append(f"[{len(texts) + 1}]\n{to_phh(record, player_id, info)}")
        else:
            texts.append(to_pokerstars(record, player_id, info))
    return ("\n" if fmt == "phh" else "\n\n").join(texts)
