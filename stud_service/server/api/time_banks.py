"""Protobuf <-> a time bank setting (RULES.md section 7), a table's or a tournament's: ``TimeBank`` in, the
config's ``time_bank_*`` values out, and back; and the whole-seconds check every Duration setting passes."""

from __future__ import annotations

from google.protobuf import duration_pb2

from stud_service.server.api.errors import malformed
from stud_service.server.proto_gen import table_pb2


def whole_seconds(duration: duration_pb2.Duration, field: str, least: int = 1) -> int:
    """A Duration setting (a table's, a tournament's): whole seconds, at least ``least`` (MALFORMED_REQUEST
    naming ``field`` otherwise)."""
    if duration.nanos or duration.seconds < least:
        bound = "0 or more" if least == 0 else f"at least {least}"
        raise malformed(f"{field.rpartition('.')[2]} must be whole seconds, {bound}", field)
    return duration.seconds


def time_bank_values(bank: table_pb2.TimeBank, field: str) -> dict[str, int]:
    """A TimeBank setting (a table's or a tournament's, at ``field``) as the config's ``time_bank_*`` values;
    their bounds are the config's to check."""
    return {"time_bank_seconds": whole_seconds(bank.reserve, f"{field}.reserve", least=0),
            "time_bank_refill_seconds": whole_seconds(bank.refill, f"{field}.refill", least=0),
            "time_bank_refill_hands": bank.refill_hands}


def time_bank_proto(reserve_seconds: int, refill_seconds: int,
                    refill_hands: int) -> table_pb2.TimeBank | None:
    """A config's time bank as the TimeBank message; None (unset) without one."""
    if not reserve_seconds:
        return None
    return table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=reserve_seconds),
                              refill=duration_pb2.Duration(seconds=refill_seconds), refill_hands=refill_hands)
