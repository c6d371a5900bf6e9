"""Real money only under a real keyring: the check every money-moving method makes first.

The embedded quick start seals cards with a development keyring kept beside its data directory, so anyone who
reads that directory reads every card. Play money is fine there; real money is refused (DEVELOPMENT_KEYRING)
unless the operator accepted the risk (``--accept-development-keyring``).
"""

from __future__ import annotations

import grpc

from stud_service.server.api.errors import RequestError
from stud_service.server.tables.settings import RuntimeSettings

REFUSED_UNDER_DEVELOPMENT_KEYRING = (
    "real money is refused: cards are sealed with the development keyring ({source}), which lies beside the"
    " database; set STUD_KEYS_FILE to a real keyring (docs/keys.md), or accept the risk with"
    " --accept-development-keyring"
)


def check_real_money(settings: RuntimeSettings) -> None:
    """Raise DEVELOPMENT_KEYRING when this replica refuses real money."""
    if settings.real_money_refused is not None:
        raise RequestError(
            grpc.StatusCode.FAILED_PRECONDITION, "DEVELOPMENT_KEYRING", settings.real_money_refused
        )
