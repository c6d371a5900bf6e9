"""Why the ledger refused a money request.

Each error carries ``reason`` (a ``stud.v1.ErrorReason`` value, proto/stud/v1/errors.proto), the name of its
gRPC status code and ErrorInfo ``metadata``, as the engine's errors do; a refused request appends nothing.

::

    LedgerError
    ├── InvalidAmount           INVALID_AMOUNT          INVALID_ARGUMENT     zero, negative, beyond int64
    ├── InvalidPaymentReference MALFORMED_REQUEST       INVALID_ARGUMENT     missing or not printable text
    ├── CurrencyMismatch        CURRENCY_MISMATCH       FAILED_PRECONDITION  money of another currency
    ├── InsufficientFunds       INSUFFICIENT_FUNDS      FAILED_PRECONDITION  more than the balance
    ├── PlayerSuspended         PLAYER_SUSPENDED        FAILED_PRECONDITION  an operator suspended the player
    ├── PlayerExcluded          PLAYER_EXCLUDED         FAILED_PRECONDITION  self-excluded or on a time-out
    ├── ExclusionNotOver        EXCLUSION_NOT_OVER      FAILED_PRECONDITION  ending one before its period ends
    ├── DepositLimitReached     DEPOSIT_LIMIT_REACHED   FAILED_PRECONDITION  more than a deposit limit leaves
    ├── LossLimitReached        LOSS_LIMIT_REACHED      FAILED_PRECONDITION  more than a loss limit leaves
    ├── SessionLimitReached     SESSION_LIMIT_REACHED   FAILED_PRECONDITION  the session's time is used up
    ├── PaymentReferenceUsed    PAYMENT_REFERENCE_USED  ALREADY_EXISTS       the reference is in the account
    ├── NoAccount               NO_ACCOUNT              NOT_FOUND            nothing was ever deposited
    └── NotYourAccount          NOT_YOUR_ACCOUNT        PERMISSION_DENIED    a player asked for another's
"""

from __future__ import annotations

from collections.abc import Mapping


class LedgerError(Exception):
    reason = "LEDGER_ERROR"
    grpc_code_name = "FAILED_PRECONDITION"

    def __init__(self, message: str, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})


class InvalidAmount(LedgerError):
    reason = "INVALID_AMOUNT"
    grpc_code_name = "INVALID_ARGUMENT"


class InvalidPaymentReference(LedgerError):
    reason = "MALFORMED_REQUEST"
    grpc_code_name = "INVALID_ARGUMENT"

    def __init__(self, message: str) -> None:
        super().__init__(message, {"field": "payment_reference"})


class CurrencyMismatch(LedgerError):
    reason = "CURRENCY_MISMATCH"
    grpc_code_name = "FAILED_PRECONDITION"


class InsufficientFunds(LedgerError):
    reason = "INSUFFICIENT_FUNDS"
    grpc_code_name = "FAILED_PRECONDITION"


class PlayerSuspended(LedgerError):
    reason = "PLAYER_SUSPENDED"
    grpc_code_name = "FAILED_PRECONDITION"


class PlayerExcluded(LedgerError):
    reason = "PLAYER_EXCLUDED"
    grpc_code_name = "FAILED_PRECONDITION"


class ExclusionNotOver(LedgerError):
    reason = "EXCLUSION_NOT_OVER"
    grpc_code_name = "FAILED_PRECONDITION"


class DepositLimitReached(LedgerError):
    reason = "DEPOSIT_LIMIT_REACHED"
    grpc_code_name = "FAILED_PRECONDITION"


class LossLimitReached(LedgerError):
    reason = "LOSS_LIMIT_REACHED"
    grpc_code_name = "FAILED_PRECONDITION"


class SessionLimitReached(LedgerError):
    reason = "SESSION_LIMIT_REACHED"
    grpc_code_name = "FAILED_PRECONDITION"


class PaymentReferenceUsed(LedgerError):
    reason = "PAYMENT_REFERENCE_USED"
    grpc_code_name = "ALREADY_EXISTS"


class NoAccount(LedgerError):
    reason = "NO_ACCOUNT"
    grpc_code_name = "NOT_FOUND"


class NotYourAccount(LedgerError):
    reason = "NOT_YOUR_ACCOUNT"
    grpc_code_name = "PERMISSION_DENIED"
