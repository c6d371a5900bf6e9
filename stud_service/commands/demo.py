"""``stud-service demo``: the real service on the embedded PostgreSQL, bots playing through gRPC.

Starts the service (a temporary data directory unless ``--data-dir`` is given), creates a raked USD
table, deposits money for each bot through the cashier, seats the bots (each buy-in debited from its
account) to play ``--hands`` hands through the public API only, prints each hand as it is played (as a
spectator sees it: hidden cards stay hidden until shown), cashes them out, and ends with a summary: each
account, the house's rake, and the money reconciliation an auditor runs. The web table is served meanwhile
(``--web-listen``); with ``--stay`` the bots sit down again and play on, slowly, with a seat left for you,
until Ctrl-C.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import secrets
import signal
import socket
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import grpc
from google.protobuf import duration_pb2

from stud_service.auth import DEFAULT_MAX_LIFETIMES, Role, TokenSettings
from stud_service.bots import Bot, StudClient, events_of, random_strategy
from stud_service.bots.narrator import Narrator, game_name, money
from stud_service.currency import stakes_text
from stud_service.dev_keys import SigningKey
from stud_service.server.proto_gen import account_pb2, audit_service_pb2, cashier_service_pb2, table_pb2
from stud_service.wording import VARIANT_NAMES

if TYPE_CHECKING:
    from stud_service.server.host import ServiceHost

PLAYERS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")
VARIANTS = {
    "stud": table_pb2.VARIANT_SEVEN_CARD_STUD,
    "hi-lo": table_pb2.VARIANT_STUD_HI_LO,
    "razz": table_pb2.VARIANT_RAZZ,
}
# --mixed: "R-S-E" (RULES.md §13), each game for a couple of hands so that a short demo plays all three.
MIXED_ROTATION = (table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_SEVEN_CARD_STUD, table_pb2.VARIANT_STUD_HI_LO)
MIXED_HANDS_PER_GAME = 2
STAKES = table_pb2.Stakes(small_bet=200, big_bet=400, ante=50, bring_in=100)
BUY_IN = 10_000
DEPOSIT = 50_000
# 5% of each pot from fourth street on, capped at $0.50 heads-up, $1 for 3-4 players, $1.50 for 5 or more.
RAKE = table_pb2.RakeRule(
    basis_points=500, cap_2_players=50, cap_3_to_4_players=100, cap_5_or_more_players=150
)
DEMO_ISSUER, DEMO_AUDIENCE = "stud-service-demo", "stud-service"
DEMO_WEB_LISTEN = "127.0.0.1:8080"
# With --stay: how long a bot thinks before acting, so that a person can follow the hand in the browser.
STAY_THINK_SECONDS = 1.2
# Tokens last as long as the service allows (--max-token-lifetime's defaults: a day for a player, an hour for
# the operator and the auditor); with --stay the bots' are renewed this often, so the table can play for days.
RENEW_TOKENS_SECONDS = DEFAULT_MAX_LIFETIMES.player / 2
HUMAN = "you"
# The player id of the spectator's token in the printed link: nobody's account, so it can only watch.
SPECTATOR = "spectator"
# After Ctrl-C, how long the hand in play may take to end: every turn a person leaves unplayed runs out its
# action clock and time bank.
CLOSE_TIMEOUT_SECONDS = 600.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="watch bots play a few hands against the real service",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    parser.add_argument("--hands", type=int, default=None,
                        help="hands to play (default 5; with --mixed, every game's hands and one more)")
    parser.add_argument("--players", type=int, default=4, choices=range(2, 9), metavar="2..8",
                        help="bots at the table (default 4)")
    parser.add_argument("--variant", choices=sorted(VARIANTS), default="stud",
                        help="the game: Seven Card Stud, Stud Hi-Lo or Razz (default stud)")
    parser.add_argument("--mixed", action="store_true",
                        help="a mixed table (RULES.md §13): Razz, Seven Card Stud and Stud Hi-Lo in turn,"
                        " --hands-per-game hands each; prints where the game changed")
    parser.add_argument("--hands-per-game", type=int, default=MIXED_HANDS_PER_GAME, metavar="1..100",
                        help=f"with --mixed: hands of each game (default {MIXED_HANDS_PER_GAME})")
    parser.add_argument("--seed", type=int, default=None, help="seed of the bots' choices (not of the deck)")
    parser.add_argument(
        "--database-url", default=None, help="use this PostgreSQL instead of the embedded one"
    )
    parser.add_argument(
        "--data-dir", default=None, help="keep the embedded PostgreSQL here (default: temporary)"
    )
    parser.add_argument("--keys-file", default=None,
                        help="keyring sealing cards at rest (default: $STUD_KEYS_FILE; embedded: its own)")
    parser.add_argument("--web-listen", default=DEMO_WEB_LISTEN,
                        help=f"the web table's address (default {DEMO_WEB_LISTEN}; if taken, a free port)")
    parser.add_argument("--tournament", action="store_true",
                        help="a sit & go of six bots at two tables, played to the end: places, prizes and the"
                        " reconciliation")
    parser.add_argument("--stay", action="store_true",
                        help="after the summary, keep the table running (bots play on, a seat is left for "
                        "you) and print the URL and a token to play in a browser; Ctrl-C ends it")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING)
    if args.hands is None:  # a mixed table's demo plays every game, then the first again
        args.hands = len(MIXED_ROTATION) * args.hands_per_game + 1 if args.mixed else 5
    with contextlib.ExitStack() as stack:
        data_dir = args.data_dir
        if data_dir is None and args.database_url is None:
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="stud-demo-"))
        from stud_service.sealing import SealingError

        try:
            return asyncio.run(play_demo(args, data_dir))
        except SealingError as error:
            print(f"stud-service demo: {error}", file=sys.stderr)
            return 2


async def play_demo(args: argparse.Namespace, data_dir: str | None) -> int:
    # A development key of its own, checked as an identity provider's would be: no setup, no shared secret.
    from stud_service.jwks import JwksKeys
    from stud_service.server.host import ServiceHost, ServiceOptions

    key = SigningKey.generate()
    tokens = TokenSettings(jwks=JwksKeys.fixed(key.jwks()), issuer=DEMO_ISSUER, audience=DEMO_AUDIENCE)
    print(
        "Starting stud-service on the embedded PostgreSQL…"
        if args.database_url is None
        else "Starting stud-service…",
        flush=True,
    )
    started = time.monotonic()
    options = ServiceOptions(
        tokens=tokens,
        page_token_key=secrets.token_hex(32),
        database_url=args.database_url,
        data_dir=data_dir,
        listen="127.0.0.1:0",
        hand_pause_seconds=0.2,
        metrics_listen="off",
        pool_size=8,
        keys_file=args.keys_file,
        # The demo's own money on the operator's own machine: accepted under the development keyring.
        accept_development_keyring=True,
        web_listen=args.web_listen,
    )
    async with _started(ServiceHost, options) as host:
        print(f"Serving gRPC on 127.0.0.1:{host.port} and the web table on {_web_url(host)}"
              f" (ready in {time.monotonic() - started:.1f}s)")
        async with grpc.aio.insecure_channel(f"127.0.0.1:{host.port}") as channel:
            if args.tournament:
                from stud_service.commands.demo_tournament import play_tournament

                def client(player: str, role: Role = Role.PLAYER) -> StudClient:
                    return _client(channel, key, player, role)

                return await play_tournament(channel, client, host, args.seed)
            return await _play(channel, key, args, host)


@contextlib.asynccontextmanager
async def _started(host_class: type[ServiceHost], options: Any) -> AsyncIterator[ServiceHost]:
    """The service; on another free port for the web table if the asked one is taken (a second demo).

    The port is tried before the service starts, not by starting it twice: a first start that failed on
    the web port would already have stopped its embedded PostgreSQL, which does not start again at once in
    the same data directory."""
    web_listen = _free_web_listen(options.web_listen)
    async with host_class(dataclasses.replace(options, web_listen=web_listen)) as host:
        yield host


def _free_web_listen(listen: str) -> str:
    """``listen`` if its port can be bound now, else the same host with port 0 (the system picks one)."""
    from stud_service.server.web.server import parse_listen

    try:
        host, port = parse_listen(listen)
    except ValueError:
        return listen  # the service says what is wrong with it
    if port == 0:
        return listen
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the web port binds
        try:
            probe.bind((host, port))
        except OSError:
            return f"{listen.rpartition(':')[0]}:0"
    return listen


def _web_url(host: ServiceHost) -> str:
    listen = host.options.web_listen.rpartition(":")[0] or "127.0.0.1"
    shown = "127.0.0.1" if listen in ("0.0.0.0", "") else listen.strip("[]")
    return f"http://{shown}:{host.web_port}/"


def _token(key: SigningKey, player: str, role: Role = Role.PLAYER) -> str:
    """A token as the demo's identity provider would issue it: as long as the service accepts for the role."""
    return key.mint(player, role, issuer=DEMO_ISSUER, audience=DEMO_AUDIENCE)


def _client(channel: grpc.aio.Channel, key: SigningKey, player: str, role: Role = Role.PLAYER) -> StudClient:
    """A client of ``player``'s with a device id of its own: the demo's bots play from one machine, each as
    its own device (the table keeps one device's players apart)."""
    return StudClient(channel, _token(key, player, role), device_id=f"demo-{player}")


async def _play(
    channel: grpc.aio.Channel, key: SigningKey, args: argparse.Namespace, host: ServiceHost
) -> int:
    operator = _client(channel, key, "house", Role.OPERATOR)
    table_id = f"demo-{secrets.token_hex(3)}"
    mixed = {"rotation": MIXED_ROTATION, "hands_per_game": args.hands_per_game} if args.mixed else {}
    await operator.create_table(
        table_id,
        table_pb2.Table(
            **mixed,
            display_name="Demo table",
            variant=MIXED_ROTATION[0] if args.mixed else VARIANTS[args.variant],
            stakes=STAKES,
            min_buy_in=2_000,
            max_buy_in=40_000,
            max_seats=8,
            action_clock=duration_pb2.Duration(seconds=10),
            currency_code="USD",
            rake=RAKE,
            # A cash table keeps one household's players apart (docs/player-protection.md). Every bot plays
            # from this machine, so the rule here is the device's; an operator's tables use PREFIX or ADDRESS.
            same_network_seating=table_pb2.SAME_NETWORK_SEATING_DEVICE,
        ),
    )
    names = PLAYERS[: args.players]
    for name in names:
        await operator.deposit(name, DEPOSIT, reference=f"demo-deposit-{name}")
    stakes = stakes_text(STAKES.small_bet, STAKES.big_bet, STAKES.ante, STAKES.bring_in, "USD")
    game = VARIANT_NAMES[_engine_variant(args.variant)]
    if args.mixed:
        games = ", ".join(game_name(variant) for variant in MIXED_ROTATION)
        each = f"{args.hands_per_game} hand{'' if args.hands_per_game == 1 else 's'} each"
        game = f"Mixed games, {games} in turn, {each},"
    print(
        f"Table tables/{table_id}: {game} {stakes}, raked 5% from"
        f" fourth street (capped); {len(names)} bots deposit {money(DEPOSIT)} each through the cashier and"
        f" buy in for {money(BUY_IN)}"
    )
    spectator = _client(channel, key, SPECTATOR)
    narrator = Narrator()
    watch = asyncio.ensure_future(_narrate(spectator, table_id, narrator, args.hands))
    bots = [
        Bot(
            _client(channel, key, name),
            table_id,
            seat,
            strategy=random_strategy,
            seed=None if args.seed is None else args.seed + seat,
        )
        for seat, name in enumerate(names, start=1)
    ]
    started = time.monotonic()
    for bot in bots:
        await bot.sit(BUY_IN)
    await asyncio.wait_for(asyncio.gather(watch, *(bot.run(args.hands) for bot in bots)), timeout=120)
    elapsed = time.monotonic() - started
    for bot in bots:  # cash out: now, or when a hand dealt meanwhile ends (their turns then play themselves)
        await bot.client.leave(table_id)
    await _until_empty(spectator, table_id)
    assert host.runtime is not None
    await host.runtime.sweep_rake()  # the server does this every --rake-sweep-seconds; now, for the summary
    auditor = _client(channel, key, "auditor", Role.AUDITOR)
    _summary(narrator, bots, elapsed)
    balanced = await _books(operator, auditor, names)
    if not args.stay:
        print(f"(Run `stud-service demo --stay` to keep the table running and play it at {_web_url(host)})")
        return balanced
    await _stay(channel, key, operator, table_id, list(zip(bots, names, strict=True)), host)
    # The table may have played for hours: the first tokens may have expired, so new ones.
    operator = _client(channel, key, "house", Role.OPERATOR)
    auditor = _client(channel, key, "auditor", Role.AUDITOR)
    await host.runtime.sweep_rake()
    return await _books(operator, auditor, (*names, HUMAN))


async def _stay(channel: grpc.aio.Channel, key: SigningKey, operator: StudClient, table_id: str,
                bots: list[tuple[Bot, str]], host: ServiceHost) -> None:
    """Bots play on, slowly, with a seat left for a person in the browser, until Ctrl-C (or SIGTERM)."""
    await operator.deposit(HUMAN, DEPOSIT, reference="demo-deposit-you")
    playing = [bot for bot, _ in bots[:7]]  # the table has 8 seats: one stays free for you
    for bot, name in bots[:7]:
        bot.client = _client(channel, key, name)
        bot.think_seconds = STAY_THINK_SECONDS
        await bot.sit(BUY_IN)
    stop, hurry = asyncio.Event(), asyncio.Event()

    def interrupted() -> None:  # the first Ctrl-C stops the demo; a second one voids the hand in play
        if stop.is_set():
            hurry.set()
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, interrupted)
    base = _web_url(host)
    # The tokens ride in the link's fragment, which a browser never sends to a server (nor in a Referer): the
    # page takes it, keeps it for the tab and drops it from the address bar.
    watch_url = f"{base}#/tables/{table_id}?token={_token(key, SPECTATOR)}"
    print("")
    print("━━ The table plays on ━━")
    print(f"Watch it: {watch_url}")
    print(f"  (a spectator's token for player {SPECTATOR!r}, who has no money and no seat; valid"
          f" {DEFAULT_MAX_LIFETIMES.player // 3600} hours)")
    print(f"Play it: open the page's login form and paste this development token of player {HUMAN!r}"
          f" ({money(DEPOSIT)} in the cashier, valid {DEFAULT_MAX_LIFETIMES.player // 3600} hours), then pick"
          " the free seat:")
    print(_token(key, HUMAN))
    print(f"Audit it: this auditor's token (valid {DEFAULT_MAX_LIFETIMES.auditor // 60} minutes) shows every"
          f" hand's verification in the replayer ({base}#/tables/{table_id}/hands):")
    print(_token(key, "auditor", Role.AUDITOR))
    print("Ctrl-C ends the demo: the table closes, everyone (you too) is cashed out when the hand in play"
          " ends, and the books are reconciled again.", flush=True)
    tasks = [asyncio.ensure_future(bot.run(10**9)) for bot in playing]
    renewing = asyncio.ensure_future(_renew_tokens(key, bots[:7], stop))
    try:
        await stop.wait()
        print("\nStopping: the table closes; everyone is cashed out when the hand in play ends (Ctrl-C again"
              " voids that hand: every chip in it goes back)…", flush=True)
        # The operator closes the table (RULES.md §12): every player, a person still seated too, leaves with
        # the stack, now or at the end of the hand in play, which the bots play out meanwhile.
        operator = _client(channel, key, "house", Role.OPERATOR)  # the first token may have expired
        await operator.close_table(table_id, "the demo ends")
        await _emptied(operator, table_id, hurry)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
        stop.set()
        for task in (*tasks, renewing):
            task.cancel()
        await asyncio.gather(*tasks, renewing, return_exceptions=True)


async def _emptied(operator: StudClient, table_id: str, hurry: asyncio.Event) -> None:
    """Wait until the closed table is empty; on ``hurry``, void the hand in play so that it empties now."""
    emptied = asyncio.ensure_future(_until_empty(operator, table_id, timeout=CLOSE_TIMEOUT_SECONDS))
    hurried = asyncio.ensure_future(hurry.wait())
    try:
        await asyncio.wait((emptied, hurried), return_when=asyncio.FIRST_COMPLETED)
        if not emptied.done():
            view = await operator.view(table_id)
            if view.HasField("hand") and not view.hand.complete:
                print("Voiding the hand in play…", flush=True)
                with contextlib.suppress(grpc.aio.AioRpcError):  # it may have ended meanwhile
                    await operator.void_hand(table_id, view.hand.hand_number, "the demo was stopped")
        await emptied
    finally:
        for task in (emptied, hurried):
            task.cancel()


async def _renew_tokens(key: SigningKey, bots: list[tuple[Bot, str]], stop: asyncio.Event) -> None:
    """Give the bots new tokens every RENEW_TOKENS_SECONDS until ``stop``, as a client renews its own
    through the login system before the old one expires."""
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), RENEW_TOKENS_SECONDS)
        for bot, name in bots:
            bot.client.use_token(_token(key, name))


def _engine_variant(name: str) -> str:
    return {"stud": "STUD", "hi-lo": "STUD_HI_LO", "razz": "RAZZ"}[name]


async def _narrate(client: StudClient, table_id: str, narrator: Narrator, hands: int) -> None:
    stream = client.watch(table_id, batch_events=True)
    try:
        async for message in stream:
            for event in events_of(message):
                narrator.feed(event)
                if len(narrator.hands) >= hands:
                    return
    finally:
        stream.cancel()


async def _until_empty(client: StudClient, table_id: str, timeout: float = 30.0) -> None:
    """Wait until nobody is seated at the table."""
    deadline = time.monotonic() + timeout
    while (await client.view(table_id)).seats:
        if time.monotonic() > deadline:
            raise TimeoutError("the players did not leave the table")
        await asyncio.sleep(0.05)


def _summary(narrator: Narrator, bots: list[Bot], elapsed: float) -> None:
    actions = sum(bot.stats.actions for bot in bots)
    latencies = sorted(latency for bot in bots for latency in bot.stats.latencies)
    print("")
    print("━━ Summary ━━")
    print(
        f"{len(narrator.hands)} hands, {actions} actions through gRPC in {elapsed:.1f}s"
        + (f" (median action round trip {latencies[len(latencies) // 2] * 1000:.1f} ms)" if latencies else "")
    )
    if narrator.hands:
        biggest = max(narrator.hands, key=lambda hand: hand.pot)
        print(
            f"Biggest pot: hand #{biggest.number}, {money(biggest.pot)}"
            + (f", won {biggest.description}" if biggest.description else "")
        )
    if narrator.game_changes:  # RULES.md §13: where a mixed table's game changed
        print("The game changed: " + "; ".join(f"after hand #{hand} to {game}"
                                               for hand, game in narrator.game_changes))
    sys.stdout.flush()


async def _books(operator: StudClient, auditor: StudClient, names: tuple[str, ...]) -> int:
    """Each bot's account, the house's rake and the reconciliation, as the cashier and an auditor see them."""
    print("Accounts (cashier):")
    for name in names:
        account = await operator.account(name)
        change = account.balance - DEPOSIT
        sign = "+" if change > 0 else "-" if change < 0 else "±"
        print(f"  {account.name:<28} {money(account.balance):>10}  ({sign}{money(abs(change))} at the table)")
    try:
        house = await operator.cashier.GetAccount(
            cashier_service_pb2.GetAccountRequest(name="house/accounts/USD"), metadata=operator.metadata
        )
    except grpc.aio.AioRpcError as error:  # no hand has been raked yet (all ended on third street)
        if error.code() != grpc.StatusCode.NOT_FOUND:
            raise
        house = account_pb2.Account(name="house/accounts/USD", balance=0)
    print(f"  {house.name:<28} {money(house.balance):>10}  (the rake)")
    books = await auditor.audit.ReconcileMoney(audit_service_pb2.ReconcileMoneyRequest(currency="USD"),
                                               metadata=auditor.metadata)
    usd = next(c for c in books.currencies if c.currency == "USD")
    print(
        f"Reconciliation (auditor): deposits {money(usd.deposits)} - withdrawals {money(usd.withdrawals)}"
        f" = balances {money(usd.balances)} + at tables {money(usd.chips_at_tables)}"
        f" + rake {money(usd.rake_taken)} — "
        + ("balanced to the cent, every money event paired." if books.balanced
           else f"{books.discrepancy_count} discrepancies!")
    )
    sys.stdout.flush()
    return 0 if books.balanced else 1
