"""The table chat in a hand's history (docs/chat.md): PokerStars' ``name said, "..."`` lines in their
place among the actions, PHH's user-defined ``_chat`` field; an operator's deletion keeps a message out of
every export but the auditor's; the exports still read as hand histories (the independent reader,
PokerKit)."""

from __future__ import annotations

import tomllib
import warnings

from engine_helpers import T0, Table, play_passively, stacked_deck
from pokerkit import HandHistory
from pokerstars_reader import read_hands

from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord
from stud_service.engine import DeleteChat, SendChat, TableConfig, event_to_json


def chatty_hand(deleted: frozenset[int] = frozenset()) -> HandRecord:
    table = Table(TableConfig(min_buy_in=1, chat_spectators=True), stacks={1: 5_000, 2: 5_000, 3: 5_000})
    table.run(SendChat("p1", "before the hand", T0))
    first = len(table.log)
    table.start(stacked_deck([]))
    table.run(SendChat("p2", 'good luck, "all"', T0 + 1))
    table.run(SendChat("railbird", "go p3!", T0 + 2))
    play_passively(table, fold=[1])
    table.run(SendChat("p1", "nice hand", T0 + 3))  # after HandEnded: not the hand's
    for number in deleted:
        table.run(DeleteChat(number, "op", "spoiler", T0 + 4))
    payloads = [event_to_json(event) for event in table.log[first:]]
    record = HandRecord.from_payloads("chatty", 1, payloads, first_version=first + 1)
    return HandRecord(record.table_id, record.hand, record.events, deleted_chat=deleted)


def test_pokerstars_writes_what_was_said_during_the_hand_as_the_room_does() -> None:
    text = to_pokerstars(chatty_hand())
    lines = text.splitlines()
    assert 'p2 said, "good luck, "all""' in lines and 'railbird said, "go p3!"' in lines
    assert "before the hand" not in text and "nice hand" not in text
    assert lines.index('p2 said, "good luck, "all""') < lines.index("*** SUMMARY ***")
    (read,) = read_hands(text)  # a tracking tool still reads the chips
    assert sum(read.before.values()) == sum(read.after.values())


def test_a_deleted_message_is_only_in_the_auditors_export() -> None:
    record = chatty_hand(deleted=frozenset({3}))
    assert "go p3!" not in to_pokerstars(record, "p1")
    assert 'railbird said, "go p3!" [deleted by an operator]' in to_pokerstars(record)
    player = tomllib.loads(to_phh(record, "p1"))
    assert [line["text"] for line in player["_chat"]] == ['good luck, "all"']
    auditor = tomllib.loads(to_phh(record))
    assert auditor["_chat"][1] == {"player": "railbird", "text": "go p3!", "after_actions": 3,
                                   "deleted": True}


def test_phh_holds_the_chat_as_a_user_defined_field_pokerkit_reads() -> None:
    text = to_phh(chatty_hand())
    data = tomllib.loads(text)
    # Third street's three deals come first; everyone talked before anyone acted.
    assert data["_chat"] == [
        {"player": "p2", "text": 'good luck, "all"', "after_actions": 3},
        {"player": "railbird", "text": "go p3!", "after_actions": 3},
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        *_, final = HandHistory.loads(text)
    assert list(final.stacks) == data["finishing_stacks"]


def test_a_hand_without_chat_has_no_chat_field() -> None:
    table = Table(TableConfig(min_buy_in=1), stacks={1: 5_000, 2: 5_000})
    table.start(stacked_deck([]))
    play_passively(table)
    payloads = [event_to_json(event) for event in table.log[2:]]
    record = HandRecord.from_payloads("quiet", 1, payloads, first_version=3)
    assert "_chat" not in to_phh(record) and " said, " not in to_pokerstars(record)
