"""Domain errors: why the engine refused a command.

Every error has a ``reason`` (an upper snake string a client can switch on: the name of a
``stud.v1.ErrorReason`` value, proto/stud/v1/errors.proto, where each is documented), a
``grpc_code_name`` (the name of the gRPC status code the server maps it to, kept as a
plain string so the engine never imports grpc) and ``metadata`` (the ErrorInfo metadata the
reason documents, strings only).  The message is for a person.  The base classes group
the errors by code and are not raised themselves.

A rejected command never changes the state: ``decide`` works on a private copy.

::

    DomainError
    ├── InvalidArgument                 (never raised itself)
    │   ├── MalformedCommand            MALFORMED_REQUEST
    │   ├── InvalidConfig               INVALID_CONFIG
    │   ├── IllegalAmount               ILLEGAL_AMOUNT
    │   ├── BuyInOutOfLimits            BUY_IN_OUT_OF_LIMITS
    │   ├── InvalidSeat                 INVALID_SEAT
    │   ├── InvalidDeck                 INVALID_DECK
    │   └── ChatTextRefused             CHAT_TEXT_REFUSED
    ├── FailedPrecondition              (never raised itself)
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
    │   ├── OfferNotDue                 OFFER_NOT_DUE
    │   ├── TableIsPaused               TABLE_PAUSED         (RULES.md §12, Stopping a game)
    │   ├── TableNotPaused              TABLE_NOT_PAUSED
    │   ├── TableIsClosed               TABLE_CLOSED
    │   ├── HandInterrupted             HAND_INTERRUPTED
    │   ├── VoidNotDue                  VOID_NOT_DUE
    │   ├── TournamentTable             TOURNAMENT_TABLE
    │   ├── ChatNamesCard               CHAT_NAMES_CARD
    │   └── ChatSilencedAllIn           CHAT_SILENCED_ALL_IN
    ├── AlreadyExists                   (never raised itself)
    │   ├── TableExists                 TABLE_EXISTS
    │   ├── AlreadySeated               ALREADY_SEATED
    │   └── AlreadyWaiting              ALREADY_WAITING
    ├── NotFound                        (never raised itself)
    │   ├── NoTable                     NO_TABLE
    │   └── ChatMessageNotFound         CHAT_MESSAGE_NOT_FOUND
    ├── ResourceExhausted               (never raised itself)
    │   └── ChatRateLimited             CHAT_RATE_LIMITED
    └── PermissionDenied                (never raised itself)
        ├── NotSeated                   NOT_SEATED
        ├── ChatMuted                   CHAT_MUTED
        └── ChatSpectatorsSilent        CHAT_SPECTATORS_SILENT
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


class DomainError(Exception):
    """A command the rules do not allow in this state."""

    reason: str = "DOMAIN_ERROR"
    grpc_code_name: str = "FAILED_PRECONDITION"

    def __init__(self, message: str, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})


def _bounds(low: int, high: int) -> dict[str, str]:
    return {"min": str(low), "max": str(high)}


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


class ResourceExhausted(DomainError):
    reason = "RESOURCE_EXHAUSTED"
    grpc_code_name = "RESOURCE_EXHAUSTED"


class MalformedCommand(InvalidArgument):
    """A command field no command takes (e.g. a client seed too long); ``field`` names it."""

    reason = "MALFORMED_REQUEST"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message, {"field": field})
        self.field = field


class InvalidConfig(InvalidArgument):
    """A table config field is out of range; ``field`` names it."""

    reason = "INVALID_CONFIG"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}", {"field": field})
        self.field = field


class IllegalAmount(InvalidArgument):
    """An amount the action does not take; ``amounts`` are the ones it does (none: it takes no amount)."""

    reason = "ILLEGAL_AMOUNT"

    def __init__(self, message: str, amounts: Iterable[int]) -> None:
        legal = sorted(amounts)
        metadata = {"amounts": ",".join(map(str, legal))}
        if legal:
            metadata |= _bounds(legal[0], legal[-1])
        super().__init__(message, metadata)


class BuyInOutOfLimits(InvalidArgument):
    """A buy-in or top-up outside ``low``..``high``."""

    reason = "BUY_IN_OUT_OF_LIMITS"

    def __init__(self, message: str, low: int, high: int) -> None:
        super().__init__(message, _bounds(low, high))


class InvalidSeat(InvalidArgument):
    """A seat number outside ``low``..``high``."""

    reason = "INVALID_SEAT"

    def __init__(self, message: str, low: int, high: int) -> None:
        super().__init__(message, _bounds(low, high))


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


class TableIsPaused(FailedPrecondition):
    """§12: the table is paused already (or a hand is to be dealt at a paused table)."""

    reason = "TABLE_PAUSED"


class TableNotPaused(FailedPrecondition):
    """§12: resuming a table that is not paused."""

    reason = "TABLE_NOT_PAUSED"


class TableIsClosed(FailedPrecondition):
    """§12: the table is closed for good: it takes no player and no operator command but VoidHand."""

    reason = "TABLE_CLOSED"


class HandInterrupted(FailedPrecondition):
    """§12: the hand stood still longer than the table's ``interrupted_hand_void_seconds``: it is being
    voided, so no action is taken in it."""

    reason = "HAND_INTERRUPTED"


class VoidNotDue(FailedPrecondition):
    """§12: the running hand has not stood still long enough to be voided automatically (or none runs)."""

    reason = "VOID_NOT_DUE"


class TournamentTable(FailedPrecondition):
    """§12: a tournament's table is paused and closed by its tournament, not table by table."""

    reason = "TOURNAMENT_TABLE"


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


# --- the table chat (docs/chat.md) -------------------------------------------------------------------

class ChatTextRefused(InvalidArgument):
    """A message that is not plain text of 1..``max_chars`` characters."""

    reason = "CHAT_TEXT_REFUSED"

    def __init__(self, message: str, max_chars: int) -> None:
        super().__init__(message, {"max_chars": str(max_chars)})


class ChatNamesCard(FailedPrecondition):
    """While a hand runs, the chat never carries cards."""

    reason = "CHAT_NAMES_CARD"


class ChatSilencedAllIn(FailedPrecondition):
    """The table's anti-collusion switch: a player still in a hand with a player all-in may not chat."""

    reason = "CHAT_SILENCED_ALL_IN"


class ChatMessageNotFound(NotFound):
    reason = "CHAT_MESSAGE_NOT_FOUND"


class ChatRateLimited(ResourceExhausted):
    """Too many messages too fast; ``retry_after_ms`` says when the next one will pass."""

    reason = "CHAT_RATE_LIMITED"

    def __init__(self, message: str, retry_after_ms: int) -> None:
        super().__init__(message, {"retry_after_ms": str(retry_after_ms)})


class ChatMuted(PermissionDenied):
    reason = "CHAT_MUTED"


class ChatSpectatorsSilent(PermissionDenied):
    """A player without a seat at a table that lets only its players write."""

    reason = "CHAT_SPECTATORS_SILENT"
