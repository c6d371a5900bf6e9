"""Where money lives in the log, and what clients call it.

=========================  ==================================  ====================================
what                       stream id (the log)                 resource name (the API)
=========================  ==================================  ====================================
a player's account         ``accounts/{CUR}/{player}``         ``players/{player}/accounts/{CUR}``
the house's rake account   ``house/{CUR}``                     ``house/accounts/{CUR}``
a player (suspension)      ``players/{player}``                ``players/{player}``
a tournament's money       ``pools/{CUR}/{tournament}``        ``tournaments/{tournament}/pool``
=========================  ==================================  ====================================

Player ids are what a token's ``sub`` may be (1..64 printable characters: they come from the identity
provider) and may hold ``/``, so a stream id puts the player last, and a resource name is read from its
right end: the currency is three letters. The prefixes differ, so no player id can make one kind of
stream collide with another. A tournament's money stream holds its prize pool and the fees it took for the
house (``stud_service.ledger.pools``); it is not the tournament's own stream, ``tournaments/{tournament}``.
Names from clients are parsed by ``stud_service.server.api.names``.
"""

from __future__ import annotations

from dataclasses import dataclass

ACCOUNT_PREFIX = "accounts/"
HOUSE_PREFIX = "house/"
PLAYER_PREFIX = "players/"
POOL_PREFIX = "pools/"
_ACCOUNTS_SEGMENT = "/accounts/"
HOUSE_NAME_PREFIX = "house/accounts/"


def account_stream(player_id: str, currency: str) -> str:
    return f"{ACCOUNT_PREFIX}{currency}/{player_id}"


def house_stream(currency: str) -> str:
    return f"{HOUSE_PREFIX}{currency}"


def player_stream(player_id: str) -> str:
    return f"{PLAYER_PREFIX}{player_id}"


def pool_stream(tournament_id: str, currency: str) -> str:
    return f"{POOL_PREFIX}{currency}/{tournament_id}"


def pool_of_stream(stream_id: str) -> tuple[str, str] | None:
    """(tournament id, currency) of a tournament's money stream, or None for any other stream."""
    if not stream_id.startswith(POOL_PREFIX):
        return None
    currency, _, tournament_id = stream_id[len(POOL_PREFIX) :].partition("/")
    return tournament_id, currency


@dataclass(frozen=True, slots=True)
class AccountName:
    """A parsed account resource name; ``player_id`` is None for the house's account."""

    player_id: str | None
    currency: str

    @property
    def stream_id(self) -> str:
        return (
            house_stream(self.currency)
            if self.player_id is None
            else account_stream(self.player_id, self.currency)
        )

    @property
    def name(self) -> str:
        if self.player_id is None:
            return HOUSE_NAME_PREFIX + self.currency
        return f"{PLAYER_PREFIX}{self.player_id}{_ACCOUNTS_SEGMENT}{self.currency}"


def account_name_of_stream(stream_id: str) -> AccountName | None:
    """The account a stream id holds, or None for any other stream."""
    if stream_id.startswith(HOUSE_PREFIX):
        return AccountName(None, stream_id[len(HOUSE_PREFIX) :])
    if stream_id.startswith(ACCOUNT_PREFIX):
        currency, _, player = stream_id[len(ACCOUNT_PREFIX) :].partition("/")
        return AccountName(player, currency)
    return None
