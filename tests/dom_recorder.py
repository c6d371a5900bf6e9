"""Everything a page's DOM ever held, and which of it were cards the viewer may not have seen yet.

``RECORDER_SCRIPT`` (for ``page.add_init_script``) logs, from before the page's own script runs, every text
node, every attribute and the text of every element ever added to the document, and every later change of
an attribute or a text, even of a node removed again in the same task. Each entry is tagged with the table
version it shows: in the event log, the newest event the page has logged (events are logged as they come);
anywhere else, the version of the view the page last drew (its ``table-facts`` line's data-version: the page
draws views at the screen's pace, so the view drawn can be older than the newest event logged). So it can be
judged against what had happened by that version: ``HoleCards`` knows, by version, every face-down card dealt
at a table and every hand shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from stud_service.bots import StudClient
from stud_service.bots.client import events_of
from stud_service.cards import RANK_NAMES, SUIT_NAMES, card_pretty, card_str, rank_of, suit_of

RECORDER_SCRIPT = r"""
(() => {
  const seen = new Set();
  const log = [];
  window.__domLog = log;
  // The version a node shows: the view drawn last (the facts line's data-version), or in the event log its
  // newest event (logged as events come, ahead of the view drawn next).
  const versionOf = (element) => element ? Number(element.dataset.version) : NaN;
  const shownVersions = () => {
    const view = versionOf(document.querySelector('[data-testid="table-facts"][data-version]'));
    const logged = versionOf(document.querySelector('[data-testid="event-log"] > [data-version]'));
    const known = [view, logged].filter((version) => !Number.isNaN(version));
    return { view: Number.isNaN(view) ? null : view, log: known.length ? Math.max(...known) : null };
  };
  const inLog = (node) => {
    const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    return Boolean(element && element.closest('[data-testid="event-log"]'));
  };
  const note = (version, kind, value) => {
    if (!value || !value.trim()) return;
    const key = `${version}\u0000${kind}\u0000${value}`;
    if (seen.has(key)) return;
    seen.add(key);
    log.push([version, kind, value]);
  };
  const attributes = (version, element) => {
    for (const attribute of element.attributes) note(version, "attr", `${attribute.name}=${attribute.value}`);
  };
  const added = (version, node) => {
    if (node.nodeType === Node.TEXT_NODE) { note(version, "text", node.data); return; }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    note(version, "text", node.textContent);  // a card's rank and suit are two spans: read them together
    attributes(version, node);
    for (const element of node.querySelectorAll("*")) attributes(version, element);
    const texts = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    while (texts.nextNode()) note(version, "text", texts.currentNode.data);
  };
  new MutationObserver((records) => {
    const shown = shownVersions();
    for (const record of records) {
      const version = inLog(record.target) ? shown.log : shown.view;
      if (record.type === "childList") record.addedNodes.forEach((node) => added(version, node));
      else if (record.type === "attributes") {
        const value = record.target.getAttribute(record.attributeName) ?? "";
        note(version, "attr", `${record.attributeName}=${value}`);
      } else if (record.type === "characterData") note(version, "text", record.target.data);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
})();
"""

Entry = tuple[int | None, str, str]  # (table version shown, "text" | "attr", value)


def card_name(code: int) -> str:
    """"ace of spades", as the page's aria-labels read."""
    return f"{RANK_NAMES[rank_of(code)]} of {SUIT_NAMES[suit_of(code)]}"


def shows_card(kind: str, value: str, code: int) -> bool:
    """Whether one logged text or attribute gives ``code`` away: its data-card code, its rank and suit as
    drawn (``A♠``), or its name."""
    if kind == "attr" and value == f"data-card={card_str(code)}":
        return True
    return card_pretty(code) in value or card_name(code) in value


@dataclass(frozen=True)
class HoleCard:
    hand: int
    seat: int
    code: int
    dealt_version: int


@dataclass
class HoleCards:
    """A table's face-down cards and showdowns by version. Nobody but its owner sees a face-down card while
    its hand runs, an auditor neither: ``follow`` (an auditor's watch) learns when each was dealt and each
    hand shown; ``learn`` which cards they were, from the auditor's watch of the log once their hands have
    ended, and for the hand still running from each seat's own view."""

    dealt: list[tuple[int, int, int]] = field(default_factory=list)  # (hand, seat, version), in order
    codes: dict[tuple[int, int], list[int]] = field(default_factory=dict)  # (hand, seat) -> down cards
    hand_started: dict[int, int] = field(default_factory=dict)  # hand -> version
    shown: dict[tuple[int, int], int] = field(default_factory=dict)  # (hand, seat) -> version
    ended: set[int] = field(default_factory=set)  # hands
    version: int = 0  # the last version read

    async def follow(self, auditor: StudClient, table_id: str) -> None:
        """Read the table's events from its creation on, for as long as the task runs."""
        async for message in auditor.watch(table_id, after_version=1, batch_events=True):
            for event in events_of(message):
                self.version = max(self.version, event.version)
                kind = event.WhichOneof("event")
                if kind == "hand_started":
                    self.hand_started[event.hand_started.hand] = event.version
                elif kind == "card_dealt" and not event.card_dealt.face_up and event.card_dealt.seat:
                    self.dealt.append((event.card_dealt.hand, event.card_dealt.seat, event.version))
                elif kind == "hand_shown":
                    self.shown[(event.hand_shown.hand, event.hand_shown.seat)] = event.version
                elif kind == "hand_ended":
                    self.ended.add(event.hand_ended.hand)

    async def learn(self, auditor: StudClient, table_id: str, players: Mapping[int, StudClient]) -> None:
        """Name every card ``follow`` saw dealt (call it once the table has stopped moving): ``players`` holds
        a client of each seat's player, for the hand still running."""
        codes: dict[tuple[int, int], list[int]] = {}
        stream = auditor.watch(table_id, after_version=1, batch_events=True)
        try:
            async for message in stream:
                for event in events_of(message):
                    dealt = event.card_dealt
                    if event.WhichOneof("event") == "card_dealt" and dealt.seat and not dealt.face_up \
                            and not dealt.hidden:
                        codes.setdefault((dealt.hand, dealt.seat), []).append(dealt.card)
                if events_of(message) and events_of(message)[-1].version >= self.version:
                    break
        finally:
            stream.cancel()
        for hand, seat in {(hand, seat) for hand, seat, _ in self.dealt} - codes.keys():
            view = await players[seat].view(table_id)
            assert view.hand.hand_number == hand, f"seat {seat}'s cards of hand {hand} are nowhere to be read"
            codes[(hand, seat)] = [code for own in view.seats if own.seat == seat for code in own.down_cards]
        self.codes = codes

    @property
    def hole(self) -> list[HoleCard]:
        """Every face-down card dealt to a seat (once ``learn`` has named them)."""
        cards, count = [], dict[tuple[int, int], int]()
        for hand, seat, version in self.dealt:
            index = count[(hand, seat)] = count.get((hand, seat), -1) + 1
            known = self.codes.get((hand, seat), [])
            assert index < len(known), f"seat {seat}'s card {index + 1} of hand {hand} was never named"
            cards.append(HoleCard(hand, seat, known[index], version))
        return cards

    def hand_at(self, version: int) -> int | None:
        started = [hand for hand, at in self.hand_started.items() if at <= version]
        return max(started) if started else None

    def secret_at(self, version: int, viewer_seat: int) -> list[HoleCard]:
        """The face-down cards of other seats that nobody had shown by ``version``, in the hand then running
        (or last played): what a page showing that version must not hold."""
        hand = self.hand_at(version)
        return [
            card for card in self.hole
            if card.hand == hand and card.seat != viewer_seat and card.dealt_version <= version
            and self.shown.get((card.hand, card.seat), version + 1) > version
        ]

    def leaks(self, log: list[Entry], viewer_seat: int) -> list[tuple[HoleCard, Entry]]:
        """Every entry of a page's log that gives away a card its viewer at ``viewer_seat`` (0: a spectator)
        may not have seen at the version the page showed."""
        found = []
        secrets: dict[int, list[HoleCard]] = {}
        for entry in log:
            version, kind, value = entry
            if version is None:
                continue
            if version not in secrets:
                secrets[version] = self.secret_at(version, viewer_seat)
            found.extend((card, entry) for card in secrets[version] if shows_card(kind, value, card.code))
        return found

    def showdown_against(self, seat: int) -> bool:
        """Whether a hand ``seat`` was dealt into has ended with another seat showing its cards."""
        dealt = {hand for hand, dealt_seat, _ in self.dealt if dealt_seat == seat}
        return any(hand in self.ended and hand in dealt
                   for hand, shown_seat in self.shown if shown_seat != seat)

    def shown_cards(self, log: list[Entry], viewer_seat: int) -> list[HoleCard]:
        """Other seats' face-down cards the page drew (data-card) once shown: the page is not blank."""
        drawn = {(version, value) for version, kind, value in log if kind == "attr" and version is not None}
        return [
            card for card in self.hole
            if card.seat != viewer_seat and (card.hand, card.seat) in self.shown
            and any(value == f"data-card={card_str(card.code)}" and self.hand_at(version) == card.hand
                    and version >= self.shown[(card.hand, card.seat)] for version, value in drawn)
        ]
