"""How the runtime runs its tables: the pause between hands, dealing, the rake's sweeps, unloading.

The settings may be replaced while the runtime runs (tests turn dealing off and on): the parts that use
them read them as they go, never a copy taken at the start.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuntimeSettings:
    # Pause between a hand's end (or the table becoming ready) and the next deal.
    next_hand_pause: float = 3.0
    # Deal hands automatically; turned off only by tests that drive StartHand themselves.
    auto_deal: bool = True
    # How often the rake tables took is swept into the house's accounts (docs/money.md); 0: never (tests).
    rake_sweep_interval: float = 30.0
    # With ownership: how long a table this replica does not own stays loaded (and followed) after its
    # clients' last call, once nobody here watches it.
    unload_unused_after: float = 60.0
    # Why real-currency play (tables with a currency, the cashier's deposits and withdrawals) is refused on
    # this replica; None: it is not (server.api.money_gate).
    real_money_refused: str | None = None
    # Player protection (docs/player-protection.md): how long a raise of a player's own limit waits before it
    # takes effect; how long a seated player may make no call before they are sat out (0: never); how often
    # this replica looks for reality checks due to the players at the tables it runs (0: never).
    limit_cooling_off: float = 86_400.0
    inactivity_timeout: float = 1_800.0
    reality_check_poll: float = 15.0
