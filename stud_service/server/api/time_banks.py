"""Protobuf <-> a time bank setting (RULES.md section 7), a table's or a tournament's: ``TimeBank`` in, the
config's ``time_bank_*`` values out, and back."""

from __future__ import annotations

from google.protobuf import duration_pb2

from stud_service.server.api.errors import malformed
from stud_service.server.proto_gen import table_pb2


def _whole_seconds(duration: duration_pb2.Duration, field: str) -> int:
    """A Duration of whole seconds (0 or more) as its seconds; anything else names ``field``."""
    if duration.nanos or duration.seconds < 0:
        raise malformed(f"{field.partition('.')[2]} must be whole seconds, 0 or more", field)
    return duration.seconds


def time_bank_values(bank: table_pb2.TimeBank, field: str) -> dict[str, int]:
    """A TimeBank setting (a table's or a tournament's, at ``field``) as the config's ``time_bank_*`` values;
    their bounds are the config's to check."""
    return {"time_bank_seconds": _whole_seconds(bank.reserve, f"{field}.reserve"),
            "time_bank_refill_seconds": _whole_seconds(bank.refill, f"{field}.refill"),
            "time_bank_refill_hands": bank.refill_hands}


def time_bank_proto(reserve_seconds: int, refill_seconds: int,
                    refill_hands: int) -> table_pb2.TimeBank | None:
    """A config's time bank as the TimeBank message; None (unset) without one."""
    if not reserve_seconds:
        return None
    return table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=reserve_seconds),
                              refill=duration_pb2.Duration(seconds=refill_seconds), refill_hands=refill_hands)
