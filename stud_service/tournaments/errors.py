"""Why a tournament refused a command (RULES.md §11).

Each error carries ``reason`` (an upper snake string a client can switch on), the name of its gRPC status
code and ErrorInfo ``metadata``, as the engine's and the ledger's errors do; a refused command changes
nothing.  Every reason is a ``stud.v1.ErrorReason`` (proto/stud/v1/errors.proto), sent with the code below
(``server.api.errors.refusal_for``).

::

    TournamentError
    ├── TournamentConfigError       INVALID_CONFIG           INVALID_ARGUMENT     a structure field, named
    ├── MalformedTournamentCommand  MALFORMED_REQUEST        INVALID_ARGUMENT     a command field, named
    ├── RegistrationClosed          REGISTRATION_CLOSED      FAILED_PRECONDITION  started, late entry over
    ├── TournamentFull              TOURNAMENT_FULL          FAILED_PRECONDITION  max_entrants registered
    ├── TournamentNotStarted        TOURNAMENT_NOT_STARTED   FAILED_PRECONDITION  no tables yet
    ├── AlreadyStarted              TOURNAMENT_STARTED       FAILED_PRECONDITION  too late to unregister
    ├── TournamentOver              TOURNAMENT_OVER          FAILED_PRECONDITION  finished or cancelled
    ├── StartNotDue                 START_NOT_DUE            FAILED_PRECONDITION  before the start time
    ├── LevelNotDue                 LEVEL_NOT_DUE            FAILED_PRECONDITION  the level's time is not up
    ├── ReEntryNotAllowed           RE_ENTRY_NOT_ALLOWED     FAILED_PRECONDITION  none left, or too late
    ├── StillInTournament           STILL_IN_TOURNAMENT      FAILED_PRECONDITION  re-entry with chips
    ├── TableOnHold                 TABLE_ON_HOLD            FAILED_PRECONDITION  break, hand for hand, ...
    ├── TableHandRunning            HAND_RUNNING             FAILED_PRECONDITION  the table is in a hand
    ├── HandReportMismatch          HAND_REPORT_MISMATCH     FAILED_PRECONDITION  not the hand or chips known
    ├── TournamentExists            TOURNAMENT_EXISTS        ALREADY_EXISTS
    ├── AlreadyRegistered           ALREADY_REGISTERED       ALREADY_EXISTS
    ├── NoTournament                NO_TOURNAMENT            NOT_FOUND            create it first
    ├── NotRegistered               NOT_REGISTERED           NOT_FOUND
    └── UnknownTable                NO_TOURNAMENT_TABLE      NOT_FOUND            not one of its open tables
"""

from __future__ import annotations

from collections.abc import Mapping


class TournamentError(Exception):
    """A command the tournament's rules do not allow in its state."""

    reason = "TOURNAMENT_ERROR"
    grpc_code_name = "FAILED_PRECONDITION"

    def __init__(self, message: str, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})


class TournamentConfigError(TournamentError):
    """A structure field is out of range; ``field`` names it (``levels[3].bring_in`` for a level's)."""

    reason = "INVALID_CONFIG"
    grpc_code_name = "INVALID_ARGUMENT"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", {"field": field})
        self.field = field


class MalformedTournamentCommand(TournamentError):
    """A command field that no command takes; ``field`` names it."""

    reason = "MALFORMED_REQUEST"
    grpc_code_name = "INVALID_ARGUMENT"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, {"field": field})
        self.field = field


class RegistrationClosed(TournamentError):
    reason = "REGISTRATION_CLOSED"


class TournamentFull(TournamentError):
    reason = "TOURNAMENT_FULL"


class TournamentNotStarted(TournamentError):
    reason = "TOURNAMENT_NOT_STARTED"


class AlreadyStarted(TournamentError):
    reason = "TOURNAMENT_STARTED"


class TournamentOver(TournamentError):
    reason = "TOURNAMENT_OVER"


class StartNotDue(TournamentError):
    reason = "START_NOT_DUE"


class LevelNotDue(TournamentError):
    reason = "LEVEL_NOT_DUE"


class ReEntryNotAllowed(TournamentError):
    reason = "RE_ENTRY_NOT_ALLOWED"


class StillInTournament(TournamentError):
    reason = "STILL_IN_TOURNAMENT"


class TableOnHold(TournamentError):
    """The table may not deal now; ``hold`` (metadata too) says why: see ``dealing.Hold``."""

    reason = "TABLE_ON_HOLD"

    def __init__(self, message: str, hold: str) -> None:
        super().__init__(message, {"hold": hold})
        self.hold = hold


class TableHandRunning(TournamentError):
    reason = "HAND_RUNNING"


class HandReportMismatch(TournamentError):
    reason = "HAND_REPORT_MISMATCH"


class TournamentExists(TournamentError):
    reason = "TOURNAMENT_EXISTS"
    grpc_code_name = "ALREADY_EXISTS"


class AlreadyRegistered(TournamentError):
    reason = "ALREADY_REGISTERED"
    grpc_code_name = "ALREADY_EXISTS"


class NoTournament(TournamentError):
    reason = "NO_TOURNAMENT"
    grpc_code_name = "NOT_FOUND"


class NotRegistered(TournamentError):
    reason = "NOT_REGISTERED"
    grpc_code_name = "NOT_FOUND"


class UnknownTable(TournamentError):
    reason = "NO_TOURNAMENT_TABLE"
    grpc_code_name = "NOT_FOUND"


class InvalidTournamentEvent(ValueError):
    """An event that cannot follow the tournament's state (a corrupt or foreign log)."""
