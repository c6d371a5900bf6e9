"""An insider reads everything while hands run, and learns no secret of a running hand (issue 16).

The real service (``ServiceHost``: gRPC with TableService, AuditService and CashierService, the metrics
endpoint, its JSON log handler at DEBUG writing to a file) runs three tables whose hands stay running: one
just dealt, one on a later street with a folded player, one whose earlier hands were played out by bots.
While they run, the insider reads:

- every row of every table of every schema of the database (``information_schema``), each column as text;
- a ``pg_dump`` of the database (the embedded PostgreSQL's own binary);
- the service's DEBUG log;
- the metrics endpoint's text;
- the answer (or refusal) of every TableService, AuditService and CashierService method, called with an
  operator token and with an auditor token, over the gRPC port and over the web port (Connect, JSON): the
  methods come from the proto descriptors, and a method without a call here fails the test.

The secrets are taken from the service's memory, never from the log: for each running hand the deck
(``state.hand.deck``), the cards not yet dealt (``deck[next_card:]``), every seat's down cards (folded
seats' too), the server seeds the dealer committed for this hand and the next (as the runtime reads each
commitment in; the next one it still holds), the sealer's data keys of the two hands, and the keyring's
key-encryption keys.

How a secret is matched (a single card code such as ``17`` appears everywhere, so only structured
encodings count):

- a server seed or a key: its lowercase and uppercase hex (also PostgreSQL's ``\\x...`` bytea text) and its
  standard and URL-safe base64, padded or not, anywhere in any text;
- the deck: any run of 4 consecutive cards not yet dealt, inside a list of card codes (``43, 50, 47, 9``
  with any commas and white space, as JSON, PostgreSQL arrays and protobuf JSON write it) or of card texts
  (``As Kd 7h 2c``, ``A♠K♦7♥2♣``, quoted or not), the list a whole token; a full deck holds such runs
  (in the API's answers a whole deck other than a running hand's is an earlier hand's, which an auditor
  may read: its runs are not counted, so that an earlier deck agreeing by chance fails nothing);
- the down cards of one seat of a running hand, in order, as such a list of card texts (in what is stored
  or logged; an exported history of an earlier hand may hold the same two cards by chance);
- stored and logged JSON (a cell, a field of the dump, a log line, a JSON string inside them), walked as
  data: an object with ``"face_up": false`` and an integer ``"card"`` (a face-down ``CardDealt``), a
  non-empty ``"deck"``, ``"down"``/``"down_cards"``/``"hole_cards"`` list, a non-empty ``"server_seed"``
  or a ShuffleCommitted ``"secret"`` is plaintext that must be sealed at rest, whatever hand it is of;
- the API's answers, walked as protobuf messages: a TableView of a running table while that hand runs,
  or a TableEvent of that hand, must show none of its down or future cards (finished hands may be shown
  to an auditor); every answer and refusal is also searched as text (protobuf JSON) for seeds and runs.

A control at the end proves the matchers find each encoding of the real secrets.
"""

from __future__ import annotations

import asyncio
import base64
import bisect
import contextlib
import inspect
import json
import re
import shutil
import subprocess
import time
import urllib.request
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import psycopg
import pytest
import pytest_asyncio
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from google.protobuf import json_format, timestamp_pb2
from google.protobuf.message import Message
from grpc_fixtures import table_spec, wait_for_turn, wait_for_view, whole_service
from psycopg import sql
from sealing_keys import TEST_KEYRING
from web_fixtures import ConnectCaller

from stud_service.auth import Role, mint_token
from stud_service.bots import Bot, StudClient, cautious_strategy
from stud_service.bots.client import account_name, new_request_id
from stud_service.cards import RANKS, SUIT_SYMBOLS, SUITS, card_pretty, card_str
from stud_service.server.host import ServiceHost
from stud_service.server.proto_gen import (
    audit_service_pb2,
    audit_service_pb2_grpc,
    cashier_service_pb2,
    cashier_service_pb2_grpc,
    table_pb2,
    table_service_pb2,
    table_service_pb2_grpc,
    tournament_pb2,
    tournament_service_pb2,
    tournament_service_pb2_grpc,
)
from stud_service.server.tables import seeds
from stud_service.server.tables.live import LiveTable, SeedCommitment
from stud_service.tournaments.draws import seed_of

TOKEN_SECRET = "insider-tests-token-secret-0123456789ab"
BUY_IN = 10_000
RUN = 4  # consecutive future cards that make a deck run
SERVICES = (
    (table_service_pb2, "TableService", table_service_pb2_grpc.TableServiceStub),
    (audit_service_pb2, "AuditService", audit_service_pb2_grpc.AuditServiceStub),
    (cashier_service_pb2, "CashierService", cashier_service_pb2_grpc.CashierServiceStub),
    (tournament_service_pb2, "TournamentService", tournament_service_pb2_grpc.TournamentServiceStub),
)


# -- the service under test --------------------------------------------------------------------------------


@dataclass
class Insider:
    host: ServiceHost
    channel: grpc.aio.Channel
    metrics_url: str
    log_path: Path

    def client(self, player: str, role: Role = Role.PLAYER) -> StudClient:
        return StudClient(self.channel, mint_token(TOKEN_SECRET, player, role))


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def insider(
    make_database: Callable[..., Awaitable[str]], tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Insider]:
    log_path = tmp_path_factory.mktemp("insider") / "service.log"
    url = await make_database(migrated=False)
    with log_path.open("w", encoding="utf-8") as log_file:
        async with whole_service(
            url, TOKEN_SECRET, log_file, "DEBUG",
            action_clock_seconds=300,  # nobody times out while the insider reads
            rake_sweep_seconds=0,
            keyring=TEST_KEYRING,
            web_listen="127.0.0.1:0",
        ) as running:
            yield Insider(running.host, running.channel, running.metrics_url, log_path)


# -- hands kept running ------------------------------------------------------------------------------------


async def seat_players(insider: Insider, names: list[str]) -> tuple[str, dict[int, StudClient]]:
    table_id = f"ins-{uuid.uuid4().hex[:10]}"
    await insider.client("house", Role.OPERATOR).create_table(table_id, table_spec(action_clock=300))
    clients = {seat: insider.client(name) for seat, name in enumerate(names, start=1)}
    for seat, client in clients.items():
        await client.sit_down(table_id, seat, BUY_IN)
    return table_id, clients


async def act_passively(
    clients: dict[int, StudClient], table_id: str, actions: int, fold_seat: int | None
) -> None:
    """``actions`` actions in the running hand: ``fold_seat`` folds at its first turn, everyone else checks,
    calls or brings in (so the hand goes on)."""
    for _ in range(actions):
        client, view = await wait_for_turn(list(clients.values()), table_id)
        legal = {action.type: action for action in view.legal_actions}
        if view.viewer_seat == fold_seat and table_pb2.ACTION_TYPE_FOLD in legal:
            choice, fold_seat = legal[table_pb2.ACTION_TYPE_FOLD], None
        else:
            choice = cautious_strategy(view, None)  # type: ignore[arg-type]
        await client.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)


async def running_hand(insider: Insider, table_id: str, clients: dict[int, StudClient]) -> None:
    """Wait until a hand is dealt and someone is to act."""
    spectator = insider.client("watcher")
    await wait_for_view(spectator, table_id, lambda v: v.HasField("hand") and not v.hand.complete
                        and v.hand.to_act_seat != 0)
    await wait_for_turn(list(clients.values()), table_id)


@dataclass
class Tables:
    running: list[str]
    finished_hands: list[str]  # hand resource names


async def keep_hands_running(insider: Insider) -> Tables:
    # Just dealt: third street, nobody has acted.
    dealt, dealt_clients = await seat_players(insider, ["ann", "ben", "cat"])
    await running_hand(insider, dealt, dealt_clients)
    # Later streets, one seat folded.
    later, later_clients = await seat_players(insider, ["dan", "eve", "fay", "gus"])
    await running_hand(insider, later, later_clients)
    await act_passively(later_clients, later, 7, fold_seat=2)
    # Two hands played out by bots, the third running on a later street.
    played, played_clients = await seat_players(insider, ["hal", "ivy", "jon"])
    bots = [Bot(client, played, seat, seed=seat) for seat, client in played_clients.items()]
    await asyncio.wait_for(asyncio.gather(*(bot.run(2) for bot in bots)), timeout=30)
    await running_hand(insider, played, played_clients)
    await act_passively(played_clients, played, 5, fold_seat=3)
    finished = [f"tables/{played}/hands/{hand}" for hand in (1, 2)]
    return Tables([dealt, later, played], finished)


# -- the secrets, from the service's memory ----------------------------------------------------------------


@dataclass
class HandSecrets:
    table_id: str
    hand: int
    deck: tuple[int, ...]
    next_card: int
    down: dict[int, list[int]]  # seat -> down cards in the order dealt
    seeds: dict[str, bytes]  # what it is -> the bytes: this hand's and the next one's server seeds, data keys

    @property
    def future(self) -> tuple[int, ...]:
        return self.deck[self.next_card:]

    @property
    def hidden_cards(self) -> set[int]:
        return set(self.future) | {card for cards in self.down.values() for card in cards}


def _seed_bytes(value: Any) -> bytes | None:
    if isinstance(value, bytes | bytearray) and value:
        return bytes(value)
    if isinstance(value, str) and re.fullmatch(r"[0-9a-fA-F]{64}", value):
        return bytes.fromhex(value)
    return None


class CommittedSeeds:
    """Every seed the runtime commits to, by commitment, as it takes it in (a spy on the function that
    reads a ShuffleCommitted into the runtime's memory): the seed of a running hand, once dealt, is
    no longer kept in the table's memory."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seeds: dict[str, bytes] = {}
        read = seeds.committed_seed

        def spy(payload: dict[str, Any], version: int) -> SeedCommitment | None:
            committed = read(payload, version)
            if committed is not None:
                self.seeds[committed.commitment] = committed.server_seed
            return committed

        monkeypatch.setattr(seeds, "committed_seed", spy)


def dealer_secrets(live: LiveTable, store: Any, committed: CommittedSeeds) -> dict[str, bytes]:
    """The running hand's and the next hand's server seeds and data keys, from the service's memory."""
    hand = live.state.hand
    assert hand is not None
    found: dict[str, bytes | None] = {
        "the server seed": committed.seeds.get(live.commitment),
        "the server seed (hand state)": _seed_bytes(getattr(hand, "server_seed", None)),
    }
    if live.next_seed is not None:
        assert live.next_seed.hand == hand.number + 1
        found["the next hand's server seed"] = live.next_seed.server_seed
    # The sealer's data keys of this hand and the next (stream -> hand -> (kid, wrapped, key)).
    data_keys = getattr(store.sealer, "_hands", {}).get(live.stream_id, {})
    for number in (hand.number, hand.number + 1):
        if number in data_keys:
            found[f"the data key of hand {number}"] = data_keys[number][2]
    return {what: value for what, value in found.items() if value is not None}


async def hand_secrets(insider: Insider, tables: Tables, committed: CommittedSeeds) -> list[HandSecrets]:
    runtime = insider.host.runtime
    assert runtime is not None
    secrets = []
    for table_id in tables.running:
        live = await runtime.table(table_id)
        hand = live.state.hand
        assert hand is not None and hand.to_act is not None, f"{table_id}: no hand running"
        down = {seat: list(player.down) for seat, player in hand.players.items()}
        seeds = dealer_secrets(live, runtime.store, committed)
        seeds |= {f"the key-encryption key {kid}": key for kid, key in TEST_KEYRING.keys.items()}
        secrets.append(HandSecrets(table_id, hand.number, tuple(hand.deck), hand.next_card, down, seeds))
    return secrets


@dataclass(frozen=True)
class Tournaments:
    kept: str  # tournaments/{id}: taking registrations, its seating draw's seed committed and not yet used
    cancelled: str  # tournaments/{id}: for CancelTournament


async def keep_a_tournament_waiting(insider: Insider) -> Tournaments:
    """Two play-money tournaments that start in ten years: registrations draw nothing, so the seed committed
    with each stays unused (the seating draw's) while the insider reads."""
    operator = insider.client("house", Role.OPERATOR)
    start = int(time.time()) + 10 * 365 * 86_400
    names = []
    for _ in range(2):
        created = await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
            tournament=tournament_pb2.Tournament(
                play_money=True, kind=tournament_pb2.TOURNAMENT_KIND_SCHEDULED,
                start_time=timestamp_pb2.Timestamp(seconds=start), max_entrants=100),
            tournament_id=f"ins-cup-{uuid.uuid4().hex[:8]}"), metadata=operator.metadata)
        names.append(created.name)
    return Tournaments(*names)


async def tournament_secrets(insider: Insider, tournaments: Tournaments) -> HandSecrets:
    """The kept tournament's committed draw seed, from the service's memory (no cards: a HandSecrets of seeds
    only)."""
    runtime = insider.host.runtime
    assert runtime is not None
    tournament_id = tournaments.kept.removeprefix("tournaments/")
    live = await runtime.tournaments.live(tournament_id)
    seed = seed_of(live.state.secret)
    assert seed is not None and live.state.draw == 1
    return HandSecrets(tournaments.kept, 0, (), 0, {}, {"the committed seed of draw 1": seed})


# -- matching ----------------------------------------------------------------------------------------------


def _seed_texts(seed: bytes) -> set[str]:
    texts = {seed.hex(), seed.hex().upper()}
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        text = encode(seed).decode()
        texts |= {text, text.rstrip("=")}
    return texts


# A list of card codes, and a list of cards as text ("As Kd", "A♠K♦", '["As", "Kd"]'), each a whole token.
_CODE_LIST = re.compile(r"(?<![\w.])\d+(?:[\s,;]+\d+)*(?![\w.])")
_CARD = r"(?:10|[2-9TJQKA])[cdhs♣♦♥♠]"
_CARD_LIST = re.compile(
    rf"""(?<![A-Za-z0-9]){_CARD}(?:[\s,;'"\[\]]*{_CARD})*(?![A-Za-z0-9])""", re.IGNORECASE
)
_CARD_TOKEN = re.compile(_CARD, re.IGNORECASE)


def _card_code(token: str) -> int:
    rank, suit = token[:-1].upper(), token[-1].lower()
    return RANKS.index("T" if rank == "10" else rank) * 4 + (SUITS + SUIT_SYMBOLS).index(suit) % 4


def _windows(cards: list[int], size: int) -> Iterator[tuple[int, tuple[int, ...]]]:
    for start in range(len(cards) - size + 1):
        yield start, tuple(cards[start:start + size])


@dataclass
class Matchers:
    """Searches for the secrets of the running hands: the seeds' texts; runs of future cards and each seat's
    down cards, looked up in every list of card codes or card texts found in a text (one pass per text)."""

    secrets: list[HandSecrets]
    seeds: dict[str, str] = field(default_factory=dict)  # text -> what it is
    runs: dict[tuple[int, ...], str] = field(default_factory=dict)
    down: dict[tuple[int, ...], str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for hand in self.secrets:
            where = f"{hand.table_id} hand {hand.hand}"
            for what, seed in hand.seeds.items():
                for text in _seed_texts(seed):
                    self.seeds[text] = f"{what} of {where}"
            for _start, run in _windows(list(hand.future), RUN):
                self.runs[run] = f"a run of {RUN} future cards of {where}"
            for seat, cards in hand.down.items():
                if len(cards) >= 2:
                    self.down[tuple(cards)] = f"seat {seat}'s down cards of {where}"

    def _another_deck(self, cards: list[int]) -> bool:
        """A whole deck, not one of the running hands' (an earlier hand's, which an auditor may read)."""
        return sorted(cards) == list(range(52)) and all(tuple(cards) != hand.deck for hand in self.secrets)

    def find(self, text: str, *, down_text: bool, other_decks: bool = False) -> Iterator[tuple[int, str]]:
        """(offset, what) of every secret in ``text``; ``other_decks``: whole decks of other hands may be in
        it (an auditor's answers), their runs are no leak."""
        for secret, what in self.seeds.items():
            at = text.find(secret)
            while at >= 0:
                yield at, what
                at = text.find(secret, at + 1)
        for match in _CODE_LIST.finditer(text):
            codes = [int(token) for token in re.split(r"[\s,;]+", match[0])]
            if not (other_decks and self._another_deck(codes)):
                for _start, window in _windows(codes, RUN):
                    if window in self.runs:
                        listed = " ".join(match[0].split())[:160]
                        yield match.start(), f"{self.runs[window]} as codes: {listed}"
        for match in _CARD_LIST.finditer(text):
            cards = [_card_code(token) for token in _CARD_TOKEN.findall(match[0])]
            if not (other_decks and self._another_deck(cards)):
                for _start, window in _windows(cards, RUN):
                    if window in self.runs:
                        yield match.start(), f"{self.runs[window]} as text: {match[0][:160]}"
            if down_text:
                for size in {len(key) for key in self.down}:
                    for _start, window in _windows(cards, size):
                        if window in self.down:
                            yield match.start(), self.down[window] + " as text"

    def in_text(self, text: str, *, down_text: bool) -> list[str]:
        return [what for _at, what in self.find(text, down_text=down_text)]


def text_leaks(readings: list[Reading], matchers: Matchers, *, at_rest: bool) -> set[str]:
    """Secrets in the readings' text, searched in one pass over all of them (NUL between two readings: no
    pattern matches across it)."""
    starts, position = [], 0
    for reading in readings:
        starts.append(position)
        position += len(reading.text) + 1
    whole = "\0".join(reading.text for reading in readings)
    return {
        f"{readings[bisect.bisect_right(starts, at) - 1].source}: {what}"
        for at, what in matchers.find(whole, down_text=at_rest, other_decks=not at_rest)
    }


_DOWN_KEYS = frozenset({"down", "down_cards", "hole_cards"})


def plaintext_at_rest(value: Any) -> list[str]:
    """Secrets stored or logged as JSON data (see the module docstring), in ``value`` and in JSON strings
    inside it."""
    found: list[str] = []

    def walk(item: Any) -> None:
        if isinstance(item, dict):
            if item.get("face_up") in (False, 0) and isinstance(item.get("card"), int) \
                    and not isinstance(item.get("card"), bool):
                found.append(f"a face-down card in plaintext: {json.dumps(item)[:200]}")
            for key, sub in item.items():
                if key == "deck" and isinstance(sub, list) and sub:
                    found.append(f"a deck in plaintext: {json.dumps(sub)[:200]}")
                elif key in _DOWN_KEYS and isinstance(sub, list) and any(isinstance(c, int) for c in sub):
                    found.append(f"down cards in plaintext under {key!r}: {sub}")
                elif "server_seed" in str(key) and isinstance(sub, str) and sub and sub != "[redacted]":
                    found.append(f"a server seed in plaintext under {key!r}")
                elif key == "secret" and item.get("type") == "ShuffleCommitted" and sub:
                    found.append("a ShuffleCommitted secret in plaintext")
                walk(sub)
        elif isinstance(item, list):
            for sub in item:
                walk(sub)
        elif isinstance(item, str) and item[:1] in ("{", "["):
            with contextlib.suppress(ValueError):
                walk(json.loads(item))

    walk(value)
    return found


def json_values(text: str) -> Iterator[Any]:
    """``text`` as JSON, if it is."""
    if text[:1] in ("{", "["):
        try:
            yield json.loads(text)
        except ValueError:
            return


# -- what the insider reads --------------------------------------------------------------------------------


@dataclass
class Reading:
    source: str  # where it was read, for the failure message
    text: str
    at_rest: bool = True  # stored or logged (JSON walked as data); False: an API answer
    message: Message | None = None
    scan: bool = True  # searched as text (False: a part of a text already searched, walked as JSON only)


async def database_rows(url: str) -> list[Reading]:
    readings = []
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        tables = await (await conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables"
            " WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
        )).fetchall()
        assert ("public", "events") in tables
        for schema, table in tables:
            columns = [row[0] for row in await (await conn.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position", (schema, table)
            )).fetchall()]
            query = sql.SQL("SELECT {} FROM {}").format(
                sql.SQL(", ").join(sql.SQL("{}::text").format(sql.Identifier(c)) for c in columns),
                sql.Identifier(schema, table),
            )
            for number, row in enumerate(await (await conn.execute(query)).fetchall()):
                for column, cell in zip(columns, row, strict=True):
                    if cell is not None:
                        readings.append(Reading(f"{schema}.{table} row {number} {column}", cell))
    return readings


def pg_dump_binary() -> str:
    """The embedded PostgreSQL's pg_dump (the same major version as the server), else the system's."""
    try:
        import pgserver

        bundled = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pg_dump"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    for candidate in (shutil.which("pg_dump"), "/usr/lib/postgresql/15/bin/pg_dump"):
        if candidate and Path(candidate).exists():
            return candidate
    pytest.fail("no pg_dump binary")


_COPY_ESCAPES = {"t": "\t", "n": "\n", "r": "\r"}


async def database_dump(url: str) -> list[Reading]:
    done = await asyncio.to_thread(
        subprocess.run, [pg_dump_binary(), "--dbname", url, "--no-owner"], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    dump = done.stdout.decode()
    assert "COPY public.events" in dump
    readings = [Reading("pg_dump", dump)]
    # COPY data lines: tab-separated fields with backslash escapes; each field may be JSON.
    for number, line in enumerate(dump.splitlines()):
        for column, value in enumerate(line.split("\t")):
            if value[:1] in ("{", "["):
                unescaped = re.sub(r"\\(.)", lambda m: _COPY_ESCAPES.get(m[1], m[1]), value)
                readings.append(Reading(f"pg_dump line {number} field {column}", unescaped, scan=False))
    return readings


def service_log(path: Path) -> list[Reading]:
    text = path.read_text(encoding="utf-8")
    assert '"level":"DEBUG"' in text, "the log was not captured at DEBUG"
    return [Reading(f"log line {number}", line) for number, line in enumerate(text.splitlines())]


async def metrics_text(url: str) -> list[Reading]:
    def fetch() -> str:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode()

    text = await asyncio.to_thread(fetch)
    assert "stud_hands_started_total" in text
    return [Reading("metrics", text)]


# -- every API method, with an operator's and an auditor's token ------------------------------------------


@dataclass
class Calls:
    """Request builders by method name: each gives the requests one token sends (several resources)."""

    tables: Tables
    tournaments: Tournaments
    fresh: str = field(default_factory=lambda: uuid.uuid4().hex[:8])

    def builders(self) -> dict[str, Callable[[], list[Message]]]:
        t, a, c, tr = table_service_pb2, audit_service_pb2, cashier_service_pb2, tournament_service_pb2
        cup = self.tournaments.kept
        running = [f"tables/{table}" for table in self.tables.running]
        first = running[0]
        hands = self.tables.finished_hands + [f"tables/{table}/hands/{n}" for table, n in self.running_hands]
        account = account_name(f"insider-{self.fresh}")
        player = f"players/insider-{self.fresh}"

        def each(make: Callable[[str], Message], names: list[str]) -> list[Message]:
            return [make(name) for name in names]

        return {
            # TableService
            "CreateTable": lambda: [t.CreateTableRequest(
                table=table_spec(), table_id=f"ins-new-{uuid.uuid4().hex[:8]}", request_id=new_request_id())],
            "GetTable": lambda: each(lambda n: t.GetTableRequest(name=n), running),
            "ListTables": lambda: [t.ListTablesRequest(page_size=100)],
            "SitDown": lambda: [
                t.SitDownRequest(name=first, seat=8, buy_in=BUY_IN, request_id=new_request_id())],
            "SitOut": lambda: [t.SitOutRequest(name=first, request_id=new_request_id())],
            "SitIn": lambda: [t.SitInRequest(name=first, request_id=new_request_id())],
            "TopUp": lambda: [t.TopUpRequest(name=first, amount=100, request_id=new_request_id())],
            "Leave": lambda: [t.LeaveRequest(name=first, request_id=new_request_id())],
            "JoinWaitingList": lambda: [t.JoinWaitingListRequest(name=first, request_id=new_request_id())],
            "LeaveWaitingList": lambda: [t.LeaveWaitingListRequest(name=first, request_id=new_request_id())],
            "GetTableView": lambda: each(lambda n: t.GetTableViewRequest(name=n), running),
            "Act": lambda: each(lambda n: t.ActRequest(
                name=n, seat=8, action=table_pb2.ACTION_TYPE_CHECK, turn=1, request_id=new_request_id()),
                running),
            # RULES.md §12: a pause undone at once; the rest refused (closing or voiding a running table
            # would end the hands the other calls read).
            "PauseTable": lambda: [
                t.PauseTableRequest(name=first, reason="insider", request_id=new_request_id())],
            "ResumeTable": lambda: [
                t.ResumeTableRequest(name=first, reason="insider", request_id=new_request_id())],
            "CloseTable": lambda: [t.CloseTableRequest(
                name=f"tables/ins-none-{self.fresh}", reason="insider", request_id=new_request_id())],
            "VoidHand": lambda: [t.VoidHandRequest(
                name=f"{first}/hands/999999", reason="insider", request_id=new_request_id())],
            "UpdateTableSettings": lambda: [t.UpdateTableSettingsRequest(
                name=first, display_name="insider", reason="insider", request_id=new_request_id())],
            "WatchTable": lambda: [
                t.WatchTableRequest(name=n, after_version=after, include_views=True, batch_events=batch)
                for n in running for after, batch in ((0, False), (1, True), (1, False))
            ],
            "SendChat": lambda: [t.SendChatRequest(name=first, text="hello", request_id=new_request_id())],
            "MuteChatPlayer": lambda: [t.MuteChatPlayerRequest(
                name=first, player_id=f"insider-{self.fresh}", muted=True, reason="insider test",
                request_id=new_request_id())],
            "DeleteChatMessage": lambda: [t.DeleteChatMessageRequest(
                name=first, number=1, reason="insider test", request_id=new_request_id())],
            "AnswerHeartbeat": lambda: each(
                lambda n: t.AnswerHeartbeatRequest(name=n, ping="insider"), running),
            # AuditService
            "ListHands": lambda: [a.ListHandsRequest(parent="tables/-", page_size=1000)],
            "GetHand": lambda: each(lambda n: a.GetHandRequest(name=n), hands),
            "ReplayHand": lambda: [a.ReplayHandRequest(name=n, view=view) for n in hands for view in (
                a.REPLAY_VIEW_UNSPECIFIED, a.REPLAY_VIEW_FULL, a.REPLAY_VIEW_PUBLIC)],
            "VerifyHand": lambda: each(lambda n: a.VerifyHandRequest(name=n), hands),
            "VerifyShuffle": lambda: each(lambda n: a.VerifyShuffleRequest(name=n), hands),
            "ExportHandHistory": lambda: [
                a.ExportHandHistoryRequest(name=n, format=f)
                for n in hands for f in (a.HISTORY_FORMAT_PHH, a.HISTORY_FORMAT_POKERSTARS)],
            "ReconcileMoney": lambda: [a.ReconcileMoneyRequest(view=a.MONEY_RECONCILIATION_VIEW_FULL)],
            "GetIntegrityReport": lambda: [a.GetIntegrityReportRequest(page_size=1000)],
            "SetClientSeed": lambda: [
                a.SetClientSeedRequest(name=first, seed="insider", request_id=new_request_id())],
            "ListAccessRecords": lambda: [_default_request("AuditService", "ListAccessRecords")],
            "ListPlayerSessions": lambda: [a.ListPlayerSessionsRequest(page_size=1000)],
            # CashierService
            "Deposit": lambda: [c.DepositRequest(account=account, amount=500, currency_code="USD",
                                                 payment_reference=f"pay-{new_request_id()}",
                                                 request_id=new_request_id())],
            "Withdraw": lambda: [c.WithdrawRequest(account=account, amount=100, currency_code="USD",
                                                   payment_reference=f"pay-{new_request_id()}",
                                                   request_id=new_request_id())],
            "GetAccount": lambda: [c.GetAccountRequest(name=account)],
            "ListAccountEntries": lambda: [c.ListAccountEntriesRequest(parent=account)],
            "SuspendPlayer": lambda: [c.SuspendPlayerRequest(name=player, reason="insider test")],
            "ReinstatePlayer": lambda: [c.ReinstatePlayerRequest(name=player)],
            "GetPlayerStanding": lambda: [c.GetPlayerStandingRequest(name=player)],
            # TournamentService
            "CreateTournament": lambda: [tr.CreateTournamentRequest(
                tournament=tournament_pb2.Tournament(play_money=True), request_id=new_request_id())],
            "GetTournament": lambda: [tr.GetTournamentRequest(name=cup)],
            "ListTournaments": lambda: [tr.ListTournamentsRequest(page_size=1000)],
            "RegisterTournament": lambda: [
                tr.RegisterTournamentRequest(name=cup, request_id=new_request_id())],
            "UnregisterTournament": lambda: [
                tr.UnregisterTournamentRequest(name=cup, request_id=new_request_id())],
            "ReEnterTournament": lambda: [tr.ReEnterTournamentRequest(name=cup, request_id=new_request_id())],
            "CancelTournament": lambda: [
                tr.CancelTournamentRequest(name=self.tournaments.cancelled, reason="insider test")],
            "GetTournamentView": lambda: [tr.GetTournamentViewRequest(name=cup)],
            "WatchTournament": lambda: [tr.WatchTournamentRequest(name=cup, after_version=after,
                                                                  include_views=True) for after in (0, 1)],
        }

    running_hands: list[tuple[str, int]] = field(default_factory=list)


def _service_descriptor(name: str):  # type: ignore[no-untyped-def]
    module = next(module for module, service, _ in SERVICES if service == name)
    return module.DESCRIPTOR.services_by_name[name]


def _default_request(service: str, method: str) -> Message:
    """A request with defaults only (for a listing method whose defaults list everything)."""
    from google.protobuf import message_factory

    descriptor = _service_descriptor(service).methods_by_name[method].input_type
    return message_factory.GetMessageClass(descriptor)()


async def call_every_method(insider: Insider, calls: Calls, role: Role, web: bool = False) -> list[Reading]:
    """Every method's answers to ``role``, over the gRPC port, or (``web``) over the web port's Connect."""
    builders = calls.builders()
    token = f"Bearer {mint_token(TOKEN_SECRET, f'insider-{role.value}', role)}"
    metadata = (("authorization", token),)
    web_caller = ConnectCaller(f"http://127.0.0.1:{insider.host.web_port}", "json") if web else None
    readings = []
    for _module, service, stub_class in SERVICES:
        stub = stub_class(insider.channel)
        for method in _service_descriptor(service).methods:
            assert method.name in builders, f"{service}.{method.name} is not called by the insider test"
            for request in builders[method.name]():
                asked = json_format.MessageToJson(request, indent=None)
                where = f"{role.value} {service}.{method.name}({asked}){' over the web port' if web else ''}"
                callable_ = getattr(stub, method.name)
                try:
                    if method.server_streaming:
                        head = await insider.host.runtime.store.head(request.name)  # type: ignore[union-attr]
                        if web_caller is not None:
                            stream = web_caller.stream(method, request, token).__aiter__()
                            replies = await _read_watch(stream, stream.aclose, request, head)  # type: ignore[attr-defined]
                        else:
                            stream = callable_(request, metadata=metadata)
                            replies = await _read_watch(stream, stream.cancel, request, head)
                    elif web_caller is not None:
                        replies = [await web_caller.unary(method, request, token)]
                    else:
                        replies = [await callable_(request, metadata=metadata, timeout=30)]
                except grpc.aio.AioRpcError as error:
                    assert error.code() not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL), where
                    text = f"{error.code().name} {error.details()} {error.trailing_metadata()}"
                    readings.append(Reading(where, text, at_rest=False))
                    continue
                except ConnectError as error:
                    assert error.code not in (Code.UNKNOWN, Code.INTERNAL), where
                    details = [base64.b64encode(detail.message_bytes).decode() for detail in error.details]
                    text = f"{error.code.name} {error.message} {details}"
                    readings.append(Reading(where, text, at_rest=False))
                    continue
                for reply in replies:
                    text = json_format.MessageToJson(reply, preserving_proto_field_name=True)
                    readings.append(Reading(where, text, at_rest=False, message=reply))
    return readings


async def _read_watch(stream, close, request, head: int) -> list[Message]:  # type: ignore[no-untyped-def]
    """The watch's first message (after_version 0), or everything from the log up to ``head``; then
    ``close()`` ends the stream."""
    replies: list[Message] = []
    try:
        async with asyncio.timeout(15):
            async for reply in stream:
                replies.append(reply)
                if request.after_version == 0:
                    break
                batched = list(getattr(reply, "events", ()))  # WatchTable's batches; WatchTournament has none
                events = batched or ([reply.event] if reply.HasField("event") else [])
                if events and events[-1].version >= head:
                    break
    finally:
        closing = close()
        if inspect.isawaitable(closing):
            await closing
    return replies


# -- the API's answers, walked as messages -----------------------------------------------------------------


def api_leaks(message: Message, secrets: list[HandSecrets], where: str, examined: Counter[str]) -> list[str]:
    """Cards of a running hand shown in a TableView or TableEvent of that hand (see the module docstring);
    ``examined`` counts the views and events of running hands looked at."""
    by_table = {hand.table_id: hand for hand in secrets}
    found: list[str] = []
    table_hint = _table_of(where)

    def check(cards: Any, hand: HandSecrets, what: str) -> None:
        shown = set(cards) & hand.hidden_cards
        if shown:
            found.append(f"{what} shows {sorted(shown)}, hidden cards of {hand.table_id} hand {hand.hand}")

    def walk(item: Message, table: str | None) -> None:
        name = item.DESCRIPTOR.full_name
        if name == "stud.v1.TableView":
            table = item.table.name.removeprefix("tables/") or table
            hand = by_table.get(table or "")
            if hand is not None and item.HasField("hand") and item.hand.hand_number == hand.hand:
                examined["views"] += 1
                for seat in item.seats:
                    check([*seat.up_cards, *seat.down_cards], hand, f"seat {seat.seat} in a view")
                check(item.hand.community_cards, hand, "the community cards in a view")
        elif name == "stud.v1.TableEvent":
            hand = by_table.get(table or "")
            kind = item.WhichOneof("event")
            body = getattr(item, kind) if kind else None
            if hand is not None and body is not None and getattr(body, "hand", None) == hand.hand:
                examined["events"] += 1
                if kind == "card_dealt" and not body.hidden:
                    check([body.card], hand, f"CardDealt at version {item.version}")
                elif kind == "hand_shown":
                    check(body.cards, hand, f"HandShown at version {item.version}")
                elif kind == "hand_started" and (body.deck or body.server_seed):
                    found.append(f"HandStarted of the running hand {hand.hand} shows the deck or seed")
        for descriptor, value in item.ListFields():
            if descriptor.message_type is None or descriptor.message_type.GetOptions().map_entry:
                continue
            for sub in (value if descriptor.is_repeated else [value]):
                walk(sub, table)

    walk(message, table_hint)
    return [f"{where}: {leak}" for leak in found]


def _table_of(where: str) -> str | None:
    match = re.search(r'"name": "tables/([^"/]+)"', where)
    return match[1] if match else None


# -- the test ----------------------------------------------------------------------------------------------


def summary(leaks: set[str]) -> str:
    """The leaks by kind (numbers elided), with a count and one example of each."""
    kinds: dict[str, list[str]] = {}
    for leak in sorted(leaks):
        head = re.split(r": [{\[]| as (?:codes|text): ", re.sub(r"ins-[0-9a-f]+", "ins-T", leak))[0]
        kinds.setdefault(re.sub(r"\d+", "N", head)[:160], []).append(leak)
    lines = [f"{len(found):4} x {kind}\n       e.g. {found[0][:300]}" for kind, found in kinds.items()]
    return f"{len(leaks)} leaks:\n" + "\n".join(lines)


async def test_an_insider_reading_everything_while_hands_run_learns_no_hidden_card_and_no_seed(
    insider: Insider, monkeypatch: pytest.MonkeyPatch
) -> None:
    committed = CommittedSeeds(monkeypatch)
    tables = await keep_hands_running(insider)
    tournaments = await keep_a_tournament_waiting(insider)
    secrets = await hand_secrets(insider, tables, committed)
    tournament = await tournament_secrets(insider, tournaments)
    url = insider.host.database_url
    assert url is not None
    calls = Calls(tables, tournaments, running_hands=[(hand.table_id, hand.hand) for hand in secrets])

    readings = await database_rows(url)
    readings += await database_dump(url)
    readings += await metrics_text(insider.metrics_url)
    for role in (Role.OPERATOR, Role.AUDITOR):
        readings += await call_every_method(insider, calls, role)
        readings += await call_every_method(insider, calls, role, web=True)
    over_web = [r for r in readings if r.message is not None and r.source.endswith(" over the web port")]
    assert len(over_web) > 40, len(over_web)  # answers, not only refusals
    readings += service_log(insider.log_path)  # last: it holds the lines the calls above caused

    # The hands are still running, exactly as they were read, and the tournament's seed is still unused.
    assert await hand_secrets(insider, tables, committed) == secrets
    assert await tournament_secrets(insider, tournaments) == tournament

    matchers = Matchers([*secrets, tournament])
    leaks = text_leaks([r for r in readings if r.scan and r.at_rest], matchers, at_rest=True)
    leaks |= text_leaks([r for r in readings if r.scan and not r.at_rest], matchers, at_rest=False)
    examined: Counter[str] = Counter()
    for reading in readings:
        if reading.at_rest:
            for value in json_values(reading.text):
                leaks.update(f"{reading.source}: {what}" for what in plaintext_at_rest(value))
        if reading.message is not None:
            leaks.update(api_leaks(reading.message, secrets, reading.source, examined))
    assert not leaks, summary(leaks)

    assert examined["views"] >= 2 * len(secrets) and examined["events"] > 50, examined

    # Control: each encoding of the real secrets is found by the matchers above.
    for hand in secrets:
        assert matchers.in_text(json.dumps(list(hand.deck)), down_text=False)
        assert list(matchers.find(json.dumps(list(hand.deck)), down_text=False, other_decks=True))
        assert matchers.in_text(" ".join(card_pretty(card) for card in hand.future), down_text=False)
        assert matchers.in_text(json.dumps([card_str(card) for card in hand.future[-RUN:]]), down_text=False)
        assert matchers.in_text("".join(card_str(card) for card in hand.down[min(hand.down)]), down_text=True)
        for seed in hand.seeds.values():
            assert matchers.in_text(f"\\x{seed.hex()}", down_text=False)
            assert matchers.in_text(base64.b64encode(seed).decode(), down_text=False)
        down_card = hand.down[min(hand.down)][0]
        assert plaintext_at_rest({"type": "CardDealt", "card": down_card, "face_up": False})
        assert {"the server seed", "the next hand's server seed"} <= set(hand.seeds), hand.seeds.keys()
    for seed in tournament.seeds.values():
        assert matchers.in_text(seed.hex().upper(), down_text=False)


async def fold_out(clients: dict[int, StudClient], table_id: str) -> None:
    """Everyone folds as soon as they may (the bring-in is posted first): the running hand ends."""
    spectator = next(iter(clients.values()))
    hand = (await spectator.view(table_id)).hand.hand_number
    while True:
        view = await spectator.view(table_id)
        if view.hand.hand_number != hand or view.hand.complete:
            return
        client, view = await wait_for_turn(list(clients.values()), table_id)
        if view.hand.hand_number != hand:
            return
        legal = {action.type: action for action in view.legal_actions}
        choice = legal.get(table_pb2.ACTION_TYPE_FOLD) or cautious_strategy(view, None)  # type: ignore[arg-type]
        await client.act(table_id, view.viewer_seat, choice.type, choice.amount, view.turn)


async def test_the_length_of_a_sealed_card_does_not_tell_the_insider_which_card_it_is(
    insider: Insider,
) -> None:
    """A sealed face-down card must not give its rank away by its length: every sealed box of one event
    type is as long as every other (the insider reads the events table's boxes; the truth, which codes
    were sealed, comes through the service's store). Hands are dealt until cards of one digit (codes 0..9:
    the twos, the threes, 4c and 4d) and of two digits have both been sealed."""
    table_id, clients = await seat_players(insider, ["kim", "lou", "max", "ned", "ola", "pia", "quy"])
    runtime = insider.host.runtime
    assert runtime is not None and insider.host.database_url is not None
    for _hand in range(10):
        await running_hand(insider, table_id, clients)
        stored = await runtime.store.read_stream(f"tables/{table_id}")
        down = {
            event.payload["card"] for event in stored
            if event.payload["type"] == "CardDealt" and not event.payload["face_up"]
        }
        if min(down) < 10 <= max(down):
            break
        await fold_out(clients, table_id)
    else:
        pytest.fail(f"no hand sealed both one- and two-digit codes: {sorted(down)}")

    lengths: dict[str, Counter[int]] = {}
    async with await psycopg.AsyncConnection.connect(insider.host.database_url) as conn:
        rows = await (await conn.execute(
            "SELECT type, payload::text FROM events WHERE stream_id = %s", (f"tables/{table_id}",)
        )).fetchall()
    for kind, payload in rows:
        sealed = json.loads(payload).get("sealed")
        if isinstance(sealed, dict):
            lengths.setdefault(kind, Counter())[len(base64.b64decode(sealed["box"]))] += 1
    assert "CardDealt" in lengths, lengths
    uneven = {kind: dict(counts) for kind, counts in lengths.items() if len(counts) > 1}
    assert not uneven, (
        f"sealed boxes of one type differ in length (bytes: count): {uneven}; the shorter CardDealt boxes "
        f"hold the one-digit codes, {sum(card < 10 for card in down)} of the {len(down)} face-down cards"
    )
