"""The demo's narrator reads the typed event stream a spectator gets: it tells every hand of random play
of every variant, split pots included, without failing on any event and without a card the spectator may
not see."""

from __future__ import annotations

from test_events_proto import RECORDED, _as_logged, _played

from stud_service.bots.narrator import HIDDEN, Narrator
from stud_service.engine import Variant
from stud_service.engine.events import HandEnded, HandStarted
from stud_service.server.api.events_proto import event_proto
from stud_service.server.api.redact import EventRedactor


def test_the_narrator_tells_every_hand_a_spectator_watches() -> None:
    played = _played()
    lines: list[str] = []
    narrator = Narrator(out=lines.append)
    spectator = EventRedactor(None)
    hands_ended = 0
    for version, event in enumerate(played, start=1):
        shown = spectator.redact(_as_logged(event), hands_ended)
        narrator.feed(event_proto(version, shown, RECORDED))
        if isinstance(event, HandEnded):
            hands_ended += 1
    started = [event for event in played if isinstance(event, HandStarted)]
    assert {event.config.variant for event in started} == set(Variant)  # every variant was told
    assert len(narrator.hands) == hands_ended == len(started)
    assert any(" half)" in line for line in lines)  # a split Hi-Lo pot was told as its halves
    assert any(HIDDEN in line for line in lines)  # down cards stay hidden from a spectator
    assert any(line.startswith("  Rake $") for line in lines)  # a raked hand says what the house took
