"""Structured JSON logs: one object per line, table and hand ids attached, and nothing secret ever printed
(no hole card, no seed before reveal, no token, no password)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

import pytest

from stud_service.engine import CardDealt
from stud_service.observability.logging import (
    REDACTED,
    configure_logging,
    is_sensitive_key,
    log_context,
    mask_text,
    redact,
    table_logger,
)

LOGGER = "stud_service.test"
DSN = "postgresql://stud:hunter2-pw@db.internal:5432/stud"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGF5ZXItMSJ9.c2lnbmF0dXJlLWJ5dGVz"


class Captured:
    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def text(self) -> str:
        return self.stream.getvalue()

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.text().splitlines()]


def install(fmt: str) -> Iterator[Captured]:
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging(fmt, "DEBUG", stream)
    try:
        yield Captured(stream)
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)


@pytest.fixture
def json_logs() -> Iterator[Captured]:
    yield from install("json")


@pytest.fixture
def text_logs() -> Iterator[Captured]:
    yield from install("text")


def test_every_line_is_one_json_object_with_ts_level_logger_msg_table_hand_and_extras(json_logs: Captured):
    logging.getLogger(LOGGER).info("seat %d taken", 3, extra={"seat": 3, "stack": 1500})
    logging.getLogger(LOGGER).warning("second line")
    first, second = json_logs.lines()
    assert first["level"] == "INFO"
    assert first["logger"] == LOGGER
    assert first["msg"] == "seat 3 taken"
    assert first["seat"] == 3 and first["stack"] == 1500
    assert first["table"] is None and first["hand"] is None
    assert first["ts"].endswith("Z")
    assert datetime.fromisoformat(first["ts"].replace("Z", "+00:00")).tzinfo is not None
    assert second["level"] == "WARNING"


def test_log_context_puts_table_and_hand_on_every_line_inside_it_and_only_there(json_logs: Captured):
    log = logging.getLogger(LOGGER)
    with log_context(table="t-1"):
        log.info("table opened")
        with log_context(hand="t-1/h-7"):
            log.info("hand started")
            logging.getLogger("stud_service.store").info("another module's line about the same hand")
        log.info("between hands")
    log.info("outside")
    lines = json_logs.lines()
    assert [(line["table"], line["hand"]) for line in lines] == [
        ("t-1", None),
        ("t-1", "t-1/h-7"),
        ("t-1", "t-1/h-7"),
        ("t-1", None),
        (None, None),
    ]


async def test_log_context_stays_inside_its_asyncio_task_across_awaits(json_logs: Captured):
    log = logging.getLogger(LOGGER)

    async def play(table: str) -> None:
        with log_context(table=table, hand=f"{table}/h-1"):
            for street in range(3):
                await asyncio.sleep(0)  # interleave the two tables
                log.info("street dealt", extra={"street": street})

    await asyncio.gather(play("t-a"), play("t-b"))
    lines = [line for line in json_logs.lines() if line["logger"] == LOGGER]
    assert len(lines) == 6
    assert all(line["hand"] == f"{line['table']}/h-1" for line in lines)
    assert {line["table"] for line in lines} == {"t-a", "t-b"}


def test_table_logger_binds_table_and_hand_and_merges_call_extras(json_logs: Captured):
    log = table_logger(LOGGER, "t-9")
    log.info("seat taken", extra={"seat": 2})
    log.for_hand("t-9/h-3").info("bring-in", extra={"amount": 25})
    first, second = json_logs.lines()
    assert (first["table"], first["hand"], first["seat"]) == ("t-9", None, 2)
    assert (second["table"], second["hand"], second["amount"]) == ("t-9", "t-9/h-3", 25)


@dataclass(frozen=True)
class DownCardsDealt:
    """Shaped like an engine event carrying a hidden card."""

    seat: int
    down_cards: tuple[str, ...]


def test_hole_cards_seeds_tokens_and_passwords_in_extras_are_redacted(json_logs: Captured):
    logging.getLogger(LOGGER).info(
        "dealt",
        extra={
            "down_cards": ["As", "Kd"],
            "server_seed": "9f86d081884c7d65",
            "deck": ["2c", "3c", "4c"],
            "token": JWT,
            "password": "hunter2-pw",
            "event": DownCardsDealt(seat=4, down_cards=("Qh", "Jh")),
            "players": [{"seat": 1, "hole_cards": ["Ah", "Ad"], "up_cards": ["7c"]}],
            "deck_commitment": "ab12cd34",
            "database": DSN,
        },
    )
    text = json_logs.text()
    for card in ("As", "Kd", "Qh", "Jh", "Ah", "Ad", "2c"):
        assert f'"{card}"' not in text
    for secret in ("9f86d081884c7d65", "hunter2-pw", JWT):
        assert secret not in text
    (line,) = json_logs.lines()
    assert line["down_cards"] == REDACTED
    assert line["server_seed"] == REDACTED
    assert line["deck"] == REDACTED
    assert line["token"] == REDACTED
    assert line["password"] == REDACTED
    assert line["event"] == {"seat": 4, "down_cards": REDACTED}
    assert line["players"] == [{"seat": 1, "hole_cards": REDACTED, "up_cards": ["7c"]}]
    # A commitment is public by design: it is published before the deal so the shuffle can be audited.
    assert line["deck_commitment"] == "ab12cd34"
    assert line["database"] == f"postgresql://stud:{REDACTED}@db.internal:5432/stud"


def test_a_card_dealt_face_down_is_redacted_and_a_card_dealt_face_up_is_not(json_logs: Captured):
    down = CardDealt(hand=7, street=3, seat=2, card=51, face_up=False)
    up = CardDealt(hand=7, street=3, seat=2, card=19, face_up=True)
    log = logging.getLogger(LOGGER)
    log.info("dealt", extra={"event": down, "payload": {"type": "CardDealt", "card": 50, "face_up": False}})
    log.info("dealt %r", down)
    log.info("dealt %s", json.dumps({"type": "CardDealt", "cards": [49], "face_up": False}))
    log.info("dealt", extra={"event": up})
    first, second, third, fourth = json_logs.lines()
    assert first["event"]["card"] == REDACTED and first["event"]["seat"] == 2
    assert first["payload"]["card"] == REDACTED
    assert "51" not in second["msg"] and "card=[redacted]" in second["msg"]
    assert "49" not in third["msg"]
    assert fourth["event"]["card"] == 19


@pytest.mark.parametrize(
    ("message", "secret"),
    [
        (f"connecting to {DSN}", "hunter2-pw"),
        ("dsn host=db user=stud password=hunter2-pw dbname=stud", "hunter2-pw"),
        (f"metadata authorization: Bearer {JWT}", JWT),
        ("got Bearer abc.def-ghi_jkl", "abc.def-ghi_jkl"),
        (f"token {JWT} rejected", JWT),
        ("server_seed=9f86d081884c7d65 committed", "9f86d081884c7d65"),
        ("event {'seat': 2, 'down_cards': ['As', 'Kd']}", "'As'"),
        ("HandDealt(seat=2, down_cards=('As', 'Kd'), up=('7c',))", "'Kd'"),
        ('{"secret": "s3cr3t-value"}', "s3cr3t-value"),
        ("STUD_TOKEN_SECRET=s3cr3t-value", "s3cr3t-value"),
    ],
)
def test_secrets_formatted_into_messages_are_masked(json_logs: Captured, message: str, secret: str):
    logging.getLogger(LOGGER).info(message)
    (line,) = json_logs.lines()
    assert secret not in line["msg"]
    assert REDACTED in line["msg"]


def test_secrets_passed_as_format_arguments_are_masked(json_logs: Captured):
    logging.getLogger(LOGGER).info("pool for %s opened, token %s", DSN, JWT)
    (line,) = json_logs.lines()
    assert "hunter2-pw" not in line["msg"] and JWT not in line["msg"]
    assert line["msg"].startswith("pool for postgresql://stud:")


def test_exception_text_is_masked_too(json_logs: Captured):
    try:
        raise ConnectionError(f"could not connect to {DSN}")
    except ConnectionError:
        logging.getLogger(LOGGER).exception("store unavailable")
    (line,) = json_logs.lines()
    assert "ConnectionError" in line["exc"]
    assert "hunter2-pw" not in json_logs.text()


def test_ordinary_text_survives_masking_unchanged():
    for text in (
        "seat 3 raises to 400 on fifth street",
        "postgresql://db.internal:5432/stud",
        "deck_commitment=ab12cd34 published",
        "hand t-1/h-7 finished, pot 1250",
    ):
        assert mask_text(text) == text


def test_sensitive_key_names():
    for key in ("token", "refresh_token", "password", "STUD_TOKEN_SECRET", "seed", "server_seed",
                "down_cards", "hole_cards", "deck", "Authorization", "api_key", "private_key"):
        assert is_sensitive_key(key), key
    for key in ("seat", "table", "hand", "up_cards", "amount", "deck_commitment", "seed_hash", "variant"):
        assert not is_sensitive_key(key), key


def test_redact_leaves_the_original_object_untouched():
    original = {"seat": 1, "down_cards": ["As"]}
    assert redact(original) == {"seat": 1, "down_cards": REDACTED}
    assert original == {"seat": 1, "down_cards": ["As"]}


def test_text_format_has_the_same_context_and_redaction(text_logs: Captured):
    with log_context(table="t-1", hand="t-1/h-2"):
        logging.getLogger(LOGGER).info("dealt to %s", DSN, extra={"down_cards": ["As", "Kd"], "seat": 5})
    text = text_logs.text()
    assert "table=t-1" in text and "hand=t-1/h-2" in text and "seat=5" in text
    assert "hunter2-pw" not in text and "'As'" not in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_values_json_cannot_encode_are_written_as_masked_strings(json_logs: Captured):
    class Opaque:
        def __str__(self) -> str:
            return f"Opaque({DSN})"

    logging.getLogger(LOGGER).info("odd extra", extra={"thing": Opaque()})
    (line,) = json_logs.lines()
    assert line["thing"] == f"Opaque(postgresql://stud:{REDACTED}@db.internal:5432/stud)"


def test_configuring_twice_leaves_one_handler_and_unknown_formats_are_refused():
    root = logging.getLogger()
    before = list(root.handlers)
    level = root.level
    try:
        configure_logging("json", "INFO", io.StringIO())
        configure_logging("text", "INFO", io.StringIO())
        ours = [h for h in root.handlers if h not in before]
        assert len(ours) == 1
        with pytest.raises(ValueError):
            configure_logging("xml", "INFO", io.StringIO())
    finally:
        for handler in [h for h in root.handlers if h not in before]:
            root.removeHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)


def test_format_and_level_come_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("STUD_LOG_FORMAT", "text")
    monkeypatch.setenv("STUD_LOG_LEVEL", "WARNING")
    stream = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = configure_logging(stream=stream)
    try:
        logging.getLogger(LOGGER).info("too quiet to show")
        logging.getLogger(LOGGER).warning("shown")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        logging.captureWarnings(False)
    assert "too quiet" not in stream.getvalue()
    assert "WARNING" in stream.getvalue() and not stream.getvalue().startswith("{")
