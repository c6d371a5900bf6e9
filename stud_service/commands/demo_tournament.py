"""``stud-service demo --tournament``: a sit & go of bots on the real service, played to the end.

The operator creates a USD sit & go of six at two tables of three, keeping one device's players apart (each
bot is a device of its own); each bot deposits through the cashier and registers through TournamentService
(buy-in + fee debited with the registration); the last registration starts it. The service
opens its tables and drives them between hands (its level clock, moves, the table broken when one is
enough); the bots play their seats through the public table API, wherever the tournament seats them. At
the end: the places and prizes, each account, and the money reconciliation an auditor runs
(deposits - withdrawals = balances + chips at tables + rake + prize pools + fees).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import grpc

from stud_service.auth import Role
from stud_service.bots import StudClient, random_strategy
from stud_service.bots.narrator import money

if TYPE_CHECKING:
    from stud_service.server.host import ServiceHost

ENTRANTS = ("alice", "bob", "carol", "dave", "erin", "frank")
BUY_IN, FEE, DEPOSIT = 1_000, 100, 5_000
# The whole tournament, bots acting at once: a few minutes at most even on a slow machine.
TOURNAMENT_SECONDS = 600
POLL_SECONDS = 0.05


async def play_tournament(channel: grpc.aio.Channel, client: Callable[..., StudClient], host: ServiceHost,
                          seed: int | None) -> int:
    from stud_service.audit.money_log import audit_money
    from stud_service.audit.tournament_verify import verify_tournament
    from stud_service.engine.config import SameNetworkRule
    from stud_service.server.proto_gen import tournament_service_pb2
    from stud_service.tournaments import Level, Status, TournamentConfig, TournamentKind

    assert host.runtime is not None
    tournaments = host.runtime.tournaments
    operator = client("house", Role.OPERATOR)
    tournament_id = f"demo-{secrets.token_hex(3)}"
    config = TournamentConfig(
        kind=TournamentKind.SIT_AND_GO, name="Demo sit & go", min_entrants=len(ENTRANTS),
        max_entrants=len(ENTRANTS), seats_per_table=3, buy_in=BUY_IN, fee=FEE, currency="USD",
        starting_stack=500, action_clock_seconds=30,
        levels=(Level(5, 10, 20, 40, 1), Level(10, 20, 40, 80, 1), Level(20, 50, 100, 200, 1),
                Level(50, 100, 200, 400, 1), Level(100, 200, 400, 800, 1)),
        same_network=SameNetworkRule.DEVICE,  # one device's players kept apart, as at the cash table
    ).validate()
    await tournaments.create(tournament_id, config, by="house")
    print(f"Tournament tournaments/{tournament_id}: a sit & go of {len(ENTRANTS)} at two tables of three,"
          f" {money(BUY_IN)} + {money(FEE)}, one-minute levels; each bot deposits {money(DEPOSIT)}")
    started = time.monotonic()
    bots, players = [], {name: client(name) for name in ENTRANTS}
    for number, name in enumerate(ENTRANTS):
        await operator.deposit(name, DEPOSIT, reference=f"demo-deposit-{name}")
        rng = random.Random(None if seed is None else seed + number)
        bots.append(asyncio.ensure_future(_play_seat(players[name], name, tournament_id, host, rng)))
    for name, player in players.items():  # each from a device of its own: the rule lets every bot in
        await player.tournaments.RegisterTournament(
            tournament_service_pb2.RegisterTournamentRequest(name=f"tournaments/{tournament_id}",
                                                             request_id=f"demo-register-{name}"),
            metadata=player.metadata)
    try:
        for _ in range(int(TOURNAMENT_SECONDS / POLL_SECONDS)):
            state = await tournaments.state(tournament_id)
            if state.status is not Status.RUNNING:
                break
            await asyncio.sleep(POLL_SECONDS)
    finally:
        for bot in bots:
            bot.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
    state = await tournaments.state(tournament_id)
    print("")
    print(f"━━ {state.status.value.capitalize()} in {time.monotonic() - started:.1f}s ━━")
    for player, (place, shared) in sorted(state.places.items(), key=lambda item: (item[1], item[0])):
        named = f"{place}-{shared}" if shared != place else str(place)
        print(f"  {named:>4}. {player:<8} {money(state.prizes_won.get(player, 0)):>10}")
    print("Accounts (cashier):")
    for name in ENTRANTS:
        account = await operator.account(name)
        print(f"  {account.name:<28} {money(account.balance):>10}")
    report = await audit_money(host.runtime.store)
    usd = report.totals["USD"]
    print(
        f"Reconciliation (auditor): deposits {money(usd.deposits)} - withdrawals {money(usd.withdrawals)}"
        f" = balances {money(usd.balances)} + at tables {money(usd.chips_at_tables)}"
        f" + rake {money(usd.rake_taken)} + prize pools {money(usd.prize_pools)} + fees {money(usd.fees)} — "
        + ("balanced to the cent, every money event paired." if report.ok
           else f"{len(report.discrepancies)} discrepancies!")
    )
    verified = await verify_tournament(host.runtime.store, tournament_id)
    print(f"Audit of the tournament: {verified.events} events and {len(verified.hands)} hands "
          + ("verified." if verified.ok else f"FAILED: {verified.first_problem()}"))
    sys.stdout.flush()
    return 0 if report.ok and verified.ok and state.status is Status.FINISHED else 1


async def _play_seat(client: StudClient, player: str, tournament_id: str, host: ServiceHost,
                     rng: random.Random) -> None:
    """One bot: its seat is wherever the tournament has it now; it acts there when its turn comes."""
    assert host.runtime is not None
    while True:
        await asyncio.sleep(POLL_SECONDS)
        state = await host.runtime.tournaments.state(tournament_id)
        seat_of = state.seat_of.get(player)
        if seat_of is None:
            if state.status.value != "REGISTERING" and player in state.places:
                return  # out
            continue
        table_id, seat = seat_of
        with contextlib.suppress(grpc.aio.AioRpcError):
            view = await client.view(table_id)
            if view.viewer_seat == seat and view.legal_actions:
                choice = random_strategy(view, rng)
                await client.act(table_id, seat, choice.type, choice.amount, view.turn)
