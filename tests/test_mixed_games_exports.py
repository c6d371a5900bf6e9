"""RULES.md §13, checked from outside: a mixed session (Razz, Stud, Stud Hi-Lo in turn, with voided hands
among them) stored through the real event log and exported; PokerKit replays every hand from its PHH in
that hand's own game, and its stacks are ours hand by hand; the PokerStars export names each hand's game
within the mix, and an independent reader of it finds the same chips.

The documented differences with PokerKit (tests/test_phh_pokerkit.py) hold in every game of a rotation as
they do at a single game's table: hands that touch one are left out of the stack-for-stack comparison."""

from __future__ import annotations

import random
import re
import tomllib
import uuid
from collections import Counter
from dataclasses import replace

import pytest_asyncio
from pokerstars_reader import read_hands
from test_phh_pokerkit import known_differences, our_stacks, pokerkit_stacks

from stud_service.audit.phh import to_phh
from stud_service.audit.pokerstars import to_pokerstars
from stud_service.audit.records import HandRecord, load_hand
from stud_service.audit.simulate import simulate_table, store_table, table_config
from stud_service.audit.verify import verify_loaded
from stud_service.engine import Variant
from stud_service.engine.config import PLAY_CHIPS
from stud_service.engine.rules.rotation import game_of_next_hand

HANDS = 240
HANDS_PER_GAME = 4
ROTATION = (Variant.RAZZ, Variant.STUD, Variant.STUD_HI_LO)
PHH_CODES = {"STUD": "F7S", "STUD_HI_LO": "F7S/8", "RAZZ": "FR"}
STARS_GAMES = {"STUD": "7 Card Stud Limit", "STUD_HI_LO": "7 Card Stud Hi/Lo Limit", "RAZZ": "Razz Limit"}


@pytest_asyncio.fixture(scope="module")
async def mixed_session(event_store) -> list[HandRecord]:
    """A mixed play-chip table's hands, one in a hundred decisions or so voiding the hand instead."""
    config = replace(table_config(Variant.RAZZ, random.Random(7)), rotation=ROTATION,
                     hands_per_game=HANDS_PER_GAME, currency=PLAY_CHIPS).validate()
    table = simulate_table(f"mixed-{uuid.uuid4().hex[:10]}", Variant.RAZZ, HANDS, seed=40, config=config,
                           voids=0.005)
    await store_table(event_store, table)
    hands = range(1, table.state.hand_number + 1)
    return [await load_hand(event_store, table.table_id, hand) for hand in hands]


def voided(record: HandRecord) -> bool:
    return any(event.type == "HandVoided" for event in record.events)


def test_each_hand_is_dealt_in_the_game_the_hands_ended_before_it_give(mixed_session):
    """The game of hand n is the rotation's after the hands before it that reached their end (§13)."""
    counted = 0
    games = Counter()
    config = replace(table_config(Variant.RAZZ, random.Random(7)), rotation=ROTATION,
                     hands_per_game=HANDS_PER_GAME)
    for record in mixed_session:
        game = game_of_next_hand(config, counted)
        assert record.started["game"] == game, record.hand
        games[game] += 1
        counted += not voided(record)
    assert sum(voided(record) for record in mixed_session) >= 2
    assert all(games[game] >= 60 for game in ROTATION), games


def test_pokerkit_replays_every_hand_in_its_own_game_to_our_stacks(mixed_session):
    """The independent check: each hand's PHH names its own game (F7S, F7S/8, FR), at that game's stakes, and
    PokerKit, replaying it as that game, ends with our stacks, hand after hand; the next hand starts from
    them (and whatever a player topped up with between hands)."""
    compared: Counter[str] = Counter()
    previous: dict[str, int] = {}
    for record in mixed_session:
        text = to_phh(record)
        data = tomllib.loads(text)
        assert data["variant"] == PHH_CODES[record.started["game"]]
        assert data["_rotation"] == ["FR", "F7S", "F7S/8"] and data["_hands_per_game"] == HANDS_PER_GAME
        starting = dict(zip(data["players"], data["starting_stacks"], strict=True))
        # a top-up between hands only adds to what the last hand left
        assert all(starting[player] >= previous[player] for player in starting if player in previous), \
            record.hand
        finishing = dict(zip(data["players"], data["finishing_stacks"], strict=True))
        previous.update(finishing)
        if voided(record) or known_differences(record):
            continue
        assert pokerkit_stacks(text) == our_stacks(record), (record.hand, text)
        compared[record.started["game"]] += 1
    assert all(compared[game] >= 30 for game in ROTATION), compared


def test_the_pokerstars_header_names_the_mix_and_the_hands_game(mixed_session):
    """As rooms write a mixed game's hands ("HORSE (Razz Limit, ...)"): the rotation's letters, then the
    hand's game and stakes; an independent reader finds the chips we end with."""
    header = re.compile(r"^PokerStars Hand #\d+:  RSE \((?P<game>[^,]+), (?P<stakes>\d+/\d+)\) - ")
    for record in mixed_session:
        text = to_pokerstars(record)
        match = header.match(text.splitlines()[0])
        assert match is not None, text.splitlines()[0]
        config = record.started["config"]
        assert match["game"] == STARS_GAMES[record.started["game"]]
        assert match["stakes"] == f"{config['small_bet']}/{config['big_bet']}"
        if voided(record):
            continue
        (read,) = read_hands(text)
        names = {seat: player for seat, player, _stack in record.started["seats"]}
        assert read.after == {names[seat]: stack for seat, stack in record.ended["stacks"]}, text


async def test_every_hand_of_the_session_verifies_in_its_own_game(event_store, mixed_session):
    """The auditor's verification (chain, shuffle, replay by the rules of the hand's game, chips) passes for
    every hand, voided ones too."""
    for record in mixed_session:
        report = await verify_loaded(event_store, record)
        assert report.ok, (record.hand, report)
