"""Domain errors: why the engine refused a command.

Every error has a ``reason`` (an upper snake string a client can switch on) and a
``grpc_code_name`` (the name of the gRPC status code the server maps it to, kept as a
plain string so the engine never imports grpc).  The message is for a person.

A rejected command never changes the state: ``decide`` works on a private copy.

::

    DomainError
    ├── InvalidArgument                 INVALID_ARGUMENT
    │   ├── InvalidConfig               INVALID_CONFIG
    │   ├── IllegalAmount               ILLEGAL_AMOUNT
    │   ├── BuyInOutOfLimits            BUY_IN_OUT_OF_LIMITS
    │   ├── InvalidSeat                 INVALID_SEAT
    │   └── InvalidDeck                 INVALID_DECK
    ├── FailedPrecondition              FAILED_PRECONDITION
    │   ├── NotYourTurn                 NOT_YOUR_TURN
    │   ├── ActionNotAvailable          ACTION_NOT_AVAILABLE
    │   ├── TableFull                   TABLE_FULL
    │   ├── SeatTaken                   SEAT_TAKEN
    │   ├── HandNotRunning              HAND_NOT_RUNNING
    │   ├── HandRunning                 HAND_RUNNING
    │   ├── TimeoutNotDue               TIMEOUT_NOT_DUE
    │   ├── NotEnoughPlayers            NOT_ENOUGH_PLAYERS
    │   ├── SeatOnOffer                 SEAT_OFFERED
    │   ├── TableNotFull                TABLE_NOT_FULL
    │   ├── WaitingListFull             WAITING_LIST_FULL
    │   ├── NotWaiting                  NOT_WAITING
    │   └── OfferNotDue                 OFFER_NOT_DUE
    ├── AlreadyExists                   ALREADY_EXISTS
    │   ├── TableExists                 TABLE_EXISTS
    │   ├── AlreadySeated               ALREADY_SEATED
    │   └── AlreadyWaiting              ALREADY_WAITING
    ├── NotFound                        NOT_FOUND
    │   └── NoTable                     NO_TABLE
    └── PermissionDenied                PERMISSION_DENIED
        └── NotSeated                   NOT_SEATED
"""

from __future__ import annotations


class DomainError(Exception):
    """A command the rules do not allow in this state."""

    reason: str = "DOMAIN_ERROR"
    grpc_code_name: str = "FAILED_PRECONDITION"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgument(DomainError):
    reason = "INVALID_ARGUMENT"
    grpc_code_name = "INVALID_ARGUMENT"


class FailedPrecondition(DomainError):
    reason = "FAILED_PRECONDITION"
    grpc_code_name = "FAILED_PRECONDITION"


class AlreadyExists(DomainError):
    reason = "ALREADY_EXISTS"
    grpc_code_name = "ALREADY_EXISTS"


class NotFound(DomainError):
    reason = "NOT_FOUND"
    grpc_code_name = "NOT_FOUND"


class PermissionDenied(DomainError):
    reason = "PERMISSION_DENIED"
    grpc_code_name = "PERMISSION_DENIED"


class InvalidConfig(InvalidArgument):
    """A table config field is out of range; ``field`` names it."""

    reason = "INVALID_CONFIG"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


class IllegalAmount(InvalidArgument):
    reason = "ILLEGAL_AMOUNT"


class BuyInOutOfLimits(InvalidArgument):
    reason = "BUY_IN_OUT_OF_LIMITS"


class InvalidSeat(InvalidArgument):
    reason = "INVALID_SEAT"


class InvalidDeck(InvalidArgument):
    reason = "INVALID_DECK"


class NotYourTurn(FailedPrecondition):
    reason = "NOT_YOUR_TURN"


class ActionNotAvailable(FailedPrecondition):
    reason = "ACTION_NOT_AVAILABLE"


class TableFull(FailedPrecondition):
    reason = "TABLE_FULL"


class SeatTaken(FailedPrecondition):
    reason = "SEAT_TAKEN"


class HandNotRunning(FailedPrecondition):
    reason = "HAND_NOT_RUNNING"


class HandRunning(FailedPrecondition):
    reason = "HAND_RUNNING"


class TimeoutNotDue(FailedPrecondition):
    reason = "TIMEOUT_NOT_DUE"


class NotEnoughPlayers(FailedPrecondition):
    reason = "NOT_ENOUGH_PLAYERS"


class SeatOnOffer(FailedPrecondition):
    """The seat is held for the player waiting first (docs/waiting-list.md)."""

    reason = "SEAT_OFFERED"


class TableNotFull(FailedPrecondition):
    """A seat is free: take it rather than wait."""

    reason = "TABLE_NOT_FULL"


class WaitingListFull(FailedPrecondition):
    reason = "WAITING_LIST_FULL"


class NotWaiting(FailedPrecondition):
    reason = "NOT_WAITING"


class OfferNotDue(FailedPrecondition):
    reason = "OFFER_NOT_DUE"


class AlreadyWaiting(AlreadyExists):
    reason = "ALREADY_WAITING"


class TableExists(AlreadyExists):
    reason = "TABLE_EXISTS"


class AlreadySeated(AlreadyExists):
    reason = "ALREADY_SEATED"


class NoTable(NotFound):
    reason = "NO_TABLE"


class NotSeated(PermissionDenied):
    reason = "NOT_SEATED"
