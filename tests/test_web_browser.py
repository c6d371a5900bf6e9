"""The web table in a real browser: headless Chromium (browser_fixtures.py) on the page the web port serves,
against the whole service (ServiceHost, real PostgreSQL) where bots play over gRPC.

A person's view of it: the lobby lists the table; a spectator watches the bots play; a player logs in with a
development token through the page's form, sits down and plays hands to a showdown by clicking (the first
action with the keyboard alone); the replayer steps through a finished hand and shows its verification and
shuffle. Every page's DOM is recorded from the first byte (dom_recorder.py) and checked against every
face-down card dealt (an auditor's watch of the log once a hand has ended; each seat's own view of the hand
still running, since nobody else, an auditor neither, sees those): none of another seat's ever appears
before it is shown.

Screenshots of the lobby, a table mid-hand and the replayer are written to test-output/screenshots/
(the README's are copies of one run's, in docs/images/, with test_web_table.py's of a dollar table at
1280×800 and 390×844).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest_asyncio
from dom_recorder import RECORDER_SCRIPT, Entry, HoleCards
from google.protobuf import duration_pb2
from grpc_fixtures import TOKEN_SECRET, table_spec, whole_service
from playwright.async_api import Browser, Page, expect
from sealing_keys import TEST_KEYRING

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient, error_reason
from stud_service.bots.client import new_request_id
from stud_service.bots.player import Bot, cautious_strategy
from stud_service.cards import card_str
from stud_service.server.host import ServiceHost
from stud_service.server.proto_gen import audit_service_pb2, table_pb2, tournament_pb2, tournament_service_pb2
from stud_service.shuffle import commitment

SCREENSHOTS = Path(__file__).resolve().parents[1] / "test-output" / "screenshots"
VIEWPORT = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 740}
BUY_IN = 10_000
WAIT_MS = 30_000  # for the page: generous, so a loaded machine is slow but never fails
WAIT_SECONDS = WAIT_MS / 1000
# A click or a tick waits longer than an assertion: it also waits for the element to hold still over two of
# the page's animation frames, and on a loaded machine a click that an assertion just found clickable has
# waited 30 s with nothing in its log after the element was found (two runs of the suite in five).
ACTION_MS = 3 * WAIT_MS
# Passive choices, best first: the player's hands go on to a showdown.
PASSIVE = ("CHECK", "CALL", "BRING_IN")
MAX_CLICKS = 120
expect.set_options(timeout=WAIT_MS)


@dataclass
class WebService:
    host: ServiceHost
    channel: grpc.aio.Channel

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.host.web_port}/"

    def client(self, player: str, role: Role = Role.PLAYER) -> StudClient:
        return StudClient(self.channel, mint_token(TOKEN_SECRET, player, role))

    async def new_table(self) -> str:
        table_id = f"web-{uuid.uuid4().hex[:10]}"
        # A long clock: the player's clicks, not the clock, end its turns.
        await self.client("house", Role.OPERATOR).create_table(table_id, table_spec(action_clock=300))
        return table_id

    def bots(self, table_id: str, seats: tuple[int, ...], **options: Any) -> list[Bot]:
        return [Bot(self.client(bot_name(table_id, seat)), table_id, seat, seed=seat, **options)
                for seat in seats]


def bot_name(table_id: str, seat: int) -> str:
    return f"bot{seat}-{table_id[-4:]}"


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def web(make_database: Callable[..., Awaitable[str]]) -> AsyncIterator[WebService]:
    async with whole_service(
        await make_database(migrated=True), TOKEN_SECRET, io.StringIO(), "WARNING",
        web_listen="127.0.0.1:0", keyring=TEST_KEYRING,
        reveal_seeds_after=0,  # a hand's seed is public once it has ended: the replayer shows the reveal
    ) as service:
        yield WebService(service.host, service.channel)


@contextlib.asynccontextmanager
async def running(*work: Coroutine[Any, Any, Any]) -> AsyncIterator[list[asyncio.Task[Any]]]:
    """Tasks for ``work``, cancelled on the way out; one that failed fails the test."""
    tasks = [asyncio.ensure_future(coroutine) for coroutine in work]
    try:
        yield tasks
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task  # re-raises what went wrong in it


async def until(condition: Callable[[], Awaitable[bool]], what: str, timeout: float = WAIT_SECONDS) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"never: {what}")
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def browser_page(browser: Browser, viewport: dict[str, int] = VIEWPORT) -> AsyncIterator[Page]:
    """A page in a context of its own (its own sessionStorage, so its own login), recording its DOM."""
    context = await browser.new_context(viewport=viewport)
    context.set_default_timeout(ACTION_MS)
    try:
        await context.add_init_script(RECORDER_SCRIPT)
        page = await context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        yield page
        assert errors == [], f"the page threw: {errors}"
    finally:
        await context.close()


async def log_in(page: Page, token: str, player: str) -> None:
    """Through the page's login form, as a person pastes a development token."""
    await page.get_by_test_id("login-token").fill(token)
    await page.get_by_test_id("login-submit").click()
    await expect(page.get_by_test_id("logged-in")).to_have_attribute("data-player", player)


async def sit_down_on_the_page(page: Page, web: WebService, table: str, player: str, seat: int,
                               buy_in: str = str(BUY_IN)) -> None:
    """Log in as ``player``, open ``table`` from the lobby, sit down in ``seat`` with the page's form
    (``buy_in`` as a person types it: dollars at a dollar table)."""
    await page.goto(web.url)
    await log_in(page, mint_token(TOKEN_SECRET, player, Role.PLAYER), player)
    await page.get_by_test_id(f"open-table-{table}").click()
    await page.get_by_test_id("sit-seat").select_option(str(seat))
    await page.get_by_test_id("sit-buy-in").fill(buy_in)
    await page.get_by_test_id("sit-down").click()
    await expect(page.get_by_test_id(f"seat-{seat}")).to_have_attribute("data-player", player)


async def dom_log(page: Page) -> list[Entry]:
    return [(version, kind, value) for version, kind, value in await page.evaluate("window.__domLog")]


async def shown_version(page: Page) -> int | None:
    """The table version the page shows (an attribute: players are shown no internal numbers)."""
    version = await page.get_by_test_id("table-facts").get_attribute("data-version")
    return int(version) if version else None


async def caught_up(page: Page, cards: HoleCards) -> None:
    """Once the table has stopped moving: the page shows its last version and the auditor's watch read it."""
    async def same() -> bool:
        before = cards.version
        return before > 0 and await shown_version(page) == before
    await until(same, "the page shows the table's last version")


async def save_screenshot(page: Page, name: str, full_page: bool = False) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / f"{name}.png", full_page=full_page)


async def fits_width(page: Page) -> None:
    """Nothing makes the page scroll sideways."""
    widths = await page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{page.url} is {widths[0]} px wide in a {widths[1]} px window"


async def tab_to(page: Page, selector: str, presses: int = 80) -> None:
    """Tab through the page until the focus is on an element matching ``selector``."""
    for _ in range(presses):
        await page.keyboard.press("Tab")
        if await page.evaluate("(s) => document.activeElement?.matches(s) ?? false", selector):
            return
    raise AssertionError(f"{presses} presses of Tab never reached {selector}")


def hands_drawn(log: list[Entry]) -> set[int]:
    return {int(match.group(1)) for _, kind, value in log
            if kind == "text" and (match := re.fullmatch(r"Hand (\d+)", value.strip()))}


async def test_a_spectator_finds_the_table_in_the_lobby_and_watches_the_bots_play_seeing_no_down_card(
    web: WebService, browser: Browser
) -> None:
    table = await web.new_table()
    cards = HoleCards()
    bots = web.bots(table, (1, 2, 3))  # the random strategy: some fold, so some cards are never shown
    for bot in bots:
        await bot.sit(BUY_IN)
    auditor = web.client("auditor", Role.AUDITOR)
    async with browser_page(browser) as page, running(cards.follow(auditor, table)):
        await page.goto(web.url)
        row = page.get_by_test_id(f"lobby-table-{table}")
        await expect(row).to_be_visible()
        await expect(page.get_by_test_id(f"seated-{table}")).to_have_text(re.compile(r"^3/\d+$"))
        await save_screenshot(page, "web-lobby")

        await log_in(page, mint_token(TOKEN_SECRET, "railbird", Role.PLAYER), "railbird")
        await page.get_by_test_id(f"open-table-{table}").click()
        await expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        await expect(page.get_by_test_id("seat-1")).to_have_attribute("data-player", bot_name(table, 1))

        async with running(*(bot.run(3) for bot in bots)) as playing:
            await asyncio.wait_for(asyncio.gather(*playing), WAIT_SECONDS * 2)
        # The bots have played three hands; the fourth is dealt and waits for them.
        await until(lambda: _running_hand(cards, 4), "the fourth hand is dealt")
        await caught_up(page, cards)
        await expect(page.get_by_test_id("hand-number")).to_have_text("Hand 4")
        log = await dom_log(page)
    await cards.learn(auditor, table, {bot.seat: bot.client for bot in bots})

    assert hands_drawn(log) >= {1, 2, 3, 4}, "the page followed every hand as its events arrived"
    assert _results_tagged_after_their_hand(log, cards) == [], "tagged by the view drawn, not the log"
    assert cards.hole, "the auditor saw the face-down cards dealt"
    assert cards.leaks(log, viewer_seat=0) == []


def _results_tagged_after_their_hand(log: list[Entry], cards: HoleCards) -> list[Entry]:
    """Entries of a hand's result on the table tagged with a version of the next hand: the page drew that
    result from an older view than its log's newest event (the showdown's cards are then judged against the
    next hand's secrets, where the same card can be another seat's)."""
    late = []
    for entry in log:
        version, _, value = entry
        if version is not None and (ended := re.search(r"Hand (\d+) · Hand over", value)):
            next_hand = cards.hand_started.get(int(ended.group(1)) + 1)
            if next_hand is not None and version >= next_hand:
                late.append(entry)
    return late


async def _running_hand(cards: HoleCards, hand: int) -> bool:
    return sum(dealt_hand == hand for dealt_hand, _, _ in cards.dealt) >= 2


def _choose(names: list[str]) -> str:
    return next((name for name in PASSIVE if name in names), next(n for n in names if n != "FOLD"))


async def test_a_player_logs_in_sits_down_and_clicks_through_hands_to_a_showdown_seeing_only_its_own_cards(
    web: WebService, browser: Browser
) -> None:
    table = await web.new_table()
    cards = HoleCards()
    player, seat = "alice", 3
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    auditor = web.client("auditor", Role.AUDITOR)
    async with browser_page(browser) as page, running(cards.follow(auditor, table)):
        await sit_down_on_the_page(page, web, table, player, seat)
        for bot in bots:
            await bot.sit(BUY_IN)

        planted = None
        actions = page.get_by_test_id("actions")
        async with running(*(bot.run(10**6) for bot in bots)):
            for clicks in range(MAX_CLICKS):
                await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
                if cards.showdown_against(seat):
                    break
                turn = await actions.get_attribute("data-turn")
                if clicks == 0:
                    await save_screenshot(page, "web-table-play-money")
                    planted = await _plant_a_hidden_card(page, bots[0], table)
                    # The keyboard alone: Tab to a passive action's button, Enter to press it.
                    await tab_to(page, ", ".join(f'[data-action="{name}"]' for name in PASSIVE))
                    await page.keyboard.press("Enter")
                else:
                    offered = actions.locator("button[data-action]")
                    choice = _choose(await offered.evaluate_all("all => all.map(b => b.dataset.action)"))
                    await actions.locator(f'button[data-action="{choice}"]').click()
                await expect(actions).not_to_have_attribute("data-turn", turn or "")
            else:
                raise AssertionError(f"{MAX_CLICKS} actions and still no showdown")
        await caught_up(page, cards)
        await page.set_viewport_size(PHONE)  # the player's turn again: its buttons fit a phone too
        await expect(actions.locator("button[data-action]").first).to_be_visible()
        await fits_width(page)
        log = await dom_log(page)
    await cards.learn(auditor, table, {seat: web.client(player), **{bot.seat: bot.client for bot in bots}})

    leaks = cards.leaks(log, viewer_seat=seat)
    assert {card.code for card, _ in leaks} == {planted}, f"no card but the planted one leaks: {leaks}"
    assert cards.shown_cards(log, viewer_seat=seat), "the page drew other seats' cards once they were shown"
    mine = [card for card in cards.hole if card.seat == seat]
    drawn = {value for _, kind, value in log if kind == "attr"}
    assert all(f"data-card={card_str(card.code)}" in drawn for card in mine), "the player saw its own cards"
    assert any(kind == "text" and " wins " in value for _, kind, value in log), "the page showed who won"
    # The page sends the browser's device id (made once, kept in localStorage) with every call: the player's
    # sessions on the web port, one per HTTP connection, all carry the same one.
    listed = audit_service_pb2.ListPlayerSessionsRequest(player_id=player)
    reply = await auditor.audit.ListPlayerSessions(listed, metadata=auditor.metadata)
    devices = {s.device_id for s in reply.player_sessions if s.transport == "web"}
    assert len(devices) == 1 and re.fullmatch("[0-9a-f]{32}", devices.pop()), reply.player_sessions


async def _click_a_passive_action(page: Page) -> str:
    """On the player's turn, click the most passive action offered; once the turn has passed, its name."""
    actions = page.get_by_test_id("actions")
    turn = await actions.get_attribute("data-turn")
    offered = actions.locator("button[data-action]")
    choice = _choose(await offered.evaluate_all("all => all.map(b => b.dataset.action)"))
    await actions.locator(f'button[data-action="{choice}"]').click()
    await expect(actions).not_to_have_attribute("data-turn", turn or "")
    return choice


async def _plant_a_hidden_card(page: Page, opponent: Bot, table: str) -> int:
    """Put an opponent's face-down card (from its own view) into the page for an instant and take it out
    again: the recorder must see it, else the leak check could never fail."""
    view = await opponent.client.view(table)
    code = next(code for seat in view.seats if seat.seat == opponent.seat for code in seat.down_cards)
    await page.evaluate(
        """(code) => { const card = document.createElement("span"); card.className = "card";
                       card.dataset.card = code; document.body.append(card); card.remove(); }""",
        card_str(code),
    )
    return code


async def test_the_replayer_steps_through_a_finished_hand_and_shows_its_verification_and_shuffle(
    web: WebService, browser: Browser
) -> None:
    table = await web.new_table()
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    for bot in bots:
        await bot.sit(BUY_IN)
    async with running(*(bot.run(1) for bot in bots)) as playing:
        await asyncio.wait_for(asyncio.gather(*playing), WAIT_SECONDS)
    viewer = "inspector"  # an auditor: verifying a hand is for auditors and operators

    async with browser_page(browser) as page:
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, viewer, Role.AUDITOR), viewer)
        await page.goto(f"{web.url}#/tables/{table}")
        await page.get_by_test_id("open-replayer").click()
        await page.get_by_test_id("hand-1").get_by_role("link").click()

        step = page.get_by_test_id("replay-step")
        streets = page.get_by_test_id("replay-streets")
        await expect(step).to_have_attribute("data-index", "0")
        await expect(page.get_by_test_id("replay-prev")).to_be_disabled()
        await page.get_by_test_id("replay-next").click()
        await expect(step).to_have_attribute("data-index", "1")
        visited = [await streets.get_attribute("data-street")]
        next_street = page.get_by_test_id("replay-next-street")
        while await next_street.is_enabled():
            index = await step.get_attribute("data-index")
            await next_street.click()
            await expect(step).not_to_have_attribute("data-index", index or "")
            visited.append(await streets.get_attribute("data-street"))
        assert [s for s in visited if s in {"THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH"}] == [
            "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH"], visited
        await expect(page.get_by_test_id("replay-next")).to_be_disabled()
        # The last step, after the showdown: the winner's seven cards face up (the loser may have mucked).
        assert await page.locator(".felt .card[data-card]:not(.down)").count() >= 7
        last = int(await step.get_attribute("data-index") or 0)
        await page.get_by_test_id("replay-prev-street").click()
        await expect(streets).not_to_have_attribute("data-street", visited[-1] or "")
        back = int(await step.get_attribute("data-index") or 0)
        assert back < last
        await page.get_by_test_id("replay-prev").click()
        await expect(step).to_have_attribute("data-index", str(back - 1))

        verification = page.get_by_test_id("verification")
        await expect(verification.locator("h2 [data-passed]")).to_have_attribute("data-passed", "true")
        checks = page.get_by_test_id("verify-checks").locator("li")
        assert await checks.count() > 0
        await expect(checks.locator('[data-passed="false"]')).to_have_count(0)
        shuffle = page.get_by_test_id("shuffle")
        await expect(shuffle.locator("h2 [data-passed]")).to_have_attribute("data-passed", "true")
        committed = (await page.get_by_test_id("commitment").text_content() or "").strip()
        seed = (await page.get_by_test_id("server-seed").text_content() or "").strip()
        assert re.fullmatch(r"[0-9a-f]{64}", committed), committed
        assert re.fullmatch(r"[0-9a-f]+", seed) and commitment(bytes.fromhex(seed)) == committed
        await save_screenshot(page, "web-replayer", full_page=True)  # the shuffle's evidence is below

        await page.set_viewport_size(PHONE)
        await fits_width(page)
        for route, ready in ((f"#/tables/{table}", "seat-1"), ("#/", f"lobby-table-{table}")):
            await page.goto(f"{web.url}{route}")
            await expect(page.get_by_test_id(ready)).to_be_visible()
            await fits_width(page)


async def test_a_paused_table_and_its_voided_hand_say_so_in_the_lobby_and_at_the_table(
    web: WebService, browser: Browser
) -> None:
    """Rule book §12: the operator's reason shows in the lobby's row and on the table; a voided hand says it
    was voided and why."""
    table = await web.new_table()
    for bot in web.bots(table, (1, 2)):
        await bot.sit(BUY_IN)
    spectator = web.client("railbird")

    async def dealt() -> bool:
        return (await spectator.view(table)).HasField("hand")

    await until(dealt, "a hand is dealt")
    operator = web.client("house", Role.OPERATOR)
    await operator.pause_table(table, "maintenance at two")
    await operator.void_hand(table, (await spectator.view(table)).hand.hand_number, "a fault on screen")
    async with browser_page(browser) as page:
        await page.goto(web.url)
        await expect(page.get_by_test_id(f"seats-{table}")).to_have_text("Paused: maintenance at two")
        await log_in(page, mint_token(TOKEN_SECRET, "railbird", Role.PLAYER), "railbird")
        await page.get_by_test_id(f"open-table-{table}").click()
        await expect(page.get_by_test_id("street")).to_have_text("Hand voided: a fault on screen")
        facts = page.get_by_test_id("table-facts")
        await expect(facts).to_have_text(re.compile(r"· Paused: maintenance at two$"))
        await expect(facts).not_to_contain_text("version")  # no internal numbers for players


async def test_a_players_time_bank_runs_and_a_chat_message_arrives(web: WebService, browser: Browser) -> None:
    """RULES.md section 7 and docs/chat.md on the page: the player lets the action clock run out, the page
    shows the time bank running, a message from another player arrives in the chat while it runs and the
    player answers; the latency meter shows the round trip the page's answered heartbeats measured; the
    player's decision then spends only what it used of the reserve."""
    table = f"web-{uuid.uuid4().hex[:10]}"
    bank = table_pb2.TimeBank(reserve=duration_pb2.Duration(seconds=60))
    await web.client("house", Role.OPERATOR).create_table(table, table_spec(action_clock=2, time_bank=bank))
    player, seat = "carol", 3
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    async with browser_page(browser) as page:
        await sit_down_on_the_page(page, web, table, player, seat)
        await expect(page.get_by_test_id(f"seat-{seat}-time-bank")).to_have_text("Time bank 60 s")
        for bot in bots:
            await bot.sit(BUY_IN)
        actions = page.get_by_test_id("actions")
        clock = page.get_by_test_id("action-clock")
        chat = page.get_by_test_id("chat-log")
        async with running(*(bot.run(10**6) for bot in bots)):
            await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
            await expect(clock).to_have_attribute("data-clock", "TIME_BANK")
            await expect(clock).to_contain_text("Your time bank")
            await bots[0].client.send_chat(table, "take your time")
            said = chat.locator(f'li[data-player="{bot_name(table, 1)}"]')
            await expect(said).to_contain_text("take your time")
            await page.get_by_test_id("chat-input").fill("thinking it over")
            await page.get_by_test_id("chat-send").click()
            await expect(chat.locator(f'li[data-player="{player}"]')).to_contain_text("thinking it over")
            latency = page.get_by_test_id("latency")
            await expect(latency).to_have_attribute("data-source", "heartbeat")
            await expect(latency).to_have_text(re.compile(r"^Round trip [\d.]+ ms \(heartbeat\)$"))
            await save_screenshot(page, "web-time-bank-and-chat")
            await _click_a_passive_action(page)
            reserve = page.get_by_test_id(f"seat-{seat}-time-bank")
            await expect(reserve).not_to_have_text("Time bank 60 s")
        left = int(re.fullmatch(r"Time bank (\d+) s", await reserve.text_content() or "").group(1))
        assert 0 < left < 60


async def _sit_and_go_of_bots(web: WebService, tournament_id: str, title: str, seats: int,
                              stack: int) -> dict[str, StudClient]:
    """A play-money sit & go of ``seats`` players at tables of three, with a long action clock (the player's
    clicks end their turns), and every seat but the last taken by bots over the API: their clients by name."""
    operator = web.client("house", Role.OPERATOR)
    await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(
            display_name=title, play_money=True, max_entrants=seats, seats_per_table=3,
            starting_stack=stack, action_clock=duration_pb2.Duration(seconds=300)),
        tournament_id=tournament_id), metadata=operator.metadata)
    bots = {f"bot{n}-{tournament_id}": web.client(f"bot{n}-{tournament_id}") for n in range(1, seats)}
    for client in bots.values():
        await client.tournaments.RegisterTournament(tournament_service_pb2.RegisterTournamentRequest(
            name=f"tournaments/{tournament_id}", request_id=new_request_id()), metadata=client.metadata)
    return bots


async def _seated_at_tournament_table(client: StudClient, tournament: str) -> tuple[str, int]:
    """The table and seat the tournament gave this player, once its owner has opened the table there."""
    async def seated() -> bool:
        view = await client.tournaments.GetTournamentView(
            tournament_service_pb2.GetTournamentViewRequest(name=tournament), metadata=client.metadata)
        if not view.table:
            return False
        try:
            table_view = await client.view(view.table.removeprefix("tables/"))
        except grpc.aio.AioRpcError as error:
            if error_reason(error) == "NO_TABLE":
                return False
            raise
        return table_view.viewer_seat == view.seat
    await until(seated, "the tournament seats the player at an open table")
    view = await client.tournaments.GetTournamentView(
        tournament_service_pb2.GetTournamentViewRequest(name=tournament), metadata=client.metadata)
    return view.table.removeprefix("tables/"), view.seat


async def test_a_player_registers_in_a_sit_and_go_from_the_lobby_plays_at_its_table_and_a_spectator_follows(
    web: WebService, browser: Browser
) -> None:
    """docs/tournaments.md, the web table: the lobby lists the sit & go; two bots register over the API and
    the player takes the last seat with the lobby's button, which starts it and takes the player to their
    table. The table shows the tournament's level and stakes, the countdown to the next level, the player's
    rank among the players left and the average stack, in chips; the player acts. A spectator opens the
    tournament from the lobby and its table from the tournament's page, and follows the hands there."""
    tag = uuid.uuid4().hex[:8]
    tournament_id = f"sng-{tag}"
    bots = await _sit_and_go_of_bots(web, tournament_id, f"Sunday {tag}", seats=3, stack=5_000)
    tournament = f"tournaments/{tournament_id}"
    player = f"dora-{tag}"

    async with browser_page(browser) as page, browser_page(browser) as spectator:
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, player, Role.PLAYER), player)
        await expect(page.get_by_test_id(f"tournament-entrants-{tournament_id}")).to_have_text("2/3")
        await expect(page.get_by_test_id(f"tournament-state-{tournament_id}")).to_have_text("Registering")
        await page.get_by_test_id(f"register-{tournament_id}").click()

        # The last registration starts the sit & go: the page goes to the player's table.
        await expect(page).to_have_url(re.compile(rf"#/tables/{tournament_id}-t1$"))
        table = f"{tournament_id}-t1"
        seats = await asyncio.gather(*(_seated_at_tournament_table(client, tournament)
                                       for client in bots.values()))
        playing = [Bot(client, table, seat, strategy=cautious_strategy, seed=seat)
                   for client, (_, seat) in zip(bots.values(), seats, strict=True)]
        panel = page.get_by_test_id("tournament-panel")
        await expect(panel.get_by_test_id("tournament-name")).to_have_text(f"Sunday {tag}")
        await expect(panel.get_by_test_id("tournament-level")).to_have_text("Level 1")
        await expect(panel.get_by_test_id("tournament-stakes")).to_have_text("20/40, ante 5, bring-in 10")
        countdown = panel.get_by_test_id("level-countdown")
        await expect(countdown).to_have_text(re.compile(r"^Next level in \d+:\d\d$"))
        left = int(await countdown.get_attribute("data-seconds") or 0)
        assert 0 < left <= 600, f"ten minutes of level 1 at most, on the server's clock: {left} s"
        await expect(panel.get_by_test_id("tournament-rank")).to_have_text(re.compile(r"^Rank [123] of 3$"))
        await expect(panel.get_by_test_id("players-left")).to_have_text("3 of 3 players left")
        await expect(panel.get_by_test_id("average-stack")).to_have_text("average stack 5,000")
        await expect(page.get_by_test_id("table-facts")).to_contain_text("tournament chips")
        mine = page.locator(f'.seat[data-player="{player}"]')
        await expect(mine.locator("[data-testid$='-stack']")).to_have_text(re.compile(r"^Stack [\d,]+$"))
        await expect(page.get_by_test_id("leave")).to_have_count(0)  # the tournament seats its players

        await spectator.goto(web.url)
        await log_in(spectator, mint_token(TOKEN_SECRET, f"rail-{tag}", Role.PLAYER), f"rail-{tag}")
        await spectator.get_by_test_id(f"open-tournament-{tournament_id}").click()
        await expect(spectator.get_by_test_id("tournament-state")).to_have_text("Running")
        await expect(spectator.get_by_test_id("register")).to_have_count(0)
        await spectator.get_by_test_id(f"watch-table-{table}").click()
        await expect(spectator.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        await expect(spectator.get_by_test_id("tournament-level")).to_have_text("Level 1")
        await expect(spectator.get_by_test_id("level-countdown")).to_have_text(re.compile(r"^Next level in "))
        await expect(spectator.get_by_test_id("tournament-rank")).to_have_count(0)  # not in it
        await expect(spectator.locator(f'.seat[data-player="{player}"]')).to_be_visible()
        await expect(spectator.get_by_test_id("sit-down-form")).to_have_count(0)

        actions = page.get_by_test_id("actions")
        async with running(*(bot.run(10**6) for bot in playing)):
            await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
            await save_screenshot(page, "web-tournament-table")
            choice = await _click_a_passive_action(page)
            acted = await shown_version(page) or 0

            async def spectator_followed() -> bool:
                return (await shown_version(spectator) or 0) >= acted
            await until(spectator_followed, "the spectator's page reaches the player's action")
        log = await dom_log(spectator)
    verb = {"CHECK": "checks", "CALL": "calls", "BRING_IN": "brings in"}.get(choice, "")
    assert any(kind == "text" and verb and " " + verb in value for _, kind, value in log), \
        f"the spectator's table log shows the player's {choice}"


async def test_a_refused_registration_shows_its_reason_in_the_lobby(
    web: WebService, browser: Browser
) -> None:
    """The lobby shows a refusal as it shows the cash tables' (the reason clients branch on, and the
    message): a player without money in the tournament's currency cannot pay its buy-in and fee."""
    tournament_id = f"usd-{uuid.uuid4().hex[:8]}"
    operator = web.client("house", Role.OPERATOR)
    await operator.tournaments.CreateTournament(tournament_service_pb2.CreateTournamentRequest(
        tournament=tournament_pb2.Tournament(display_name="Ten dollars", currency_code="USD", buy_in=1_000,
                                             fee=100, max_entrants=6),
        tournament_id=tournament_id), metadata=operator.metadata)
    player = f"penny-{uuid.uuid4().hex[:6]}"
    async with browser_page(browser) as page:
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, player, Role.PLAYER), player)
        row = page.get_by_test_id(f"lobby-tournament-{tournament_id}")
        await expect(row).to_contain_text("$10.00 + $1.00")
        await page.get_by_test_id(f"register-{tournament_id}").click()
        error = page.get_by_test_id("error")
        await expect(error).to_have_attribute("data-reason", "INSUFFICIENT_FUNDS")
        await expect(error).to_have_attribute("data-code", "FailedPrecondition")
        await expect(page.get_by_test_id(f"tournament-entrants-{tournament_id}")).to_have_text("0/6")
        await expect(page.get_by_test_id(f"register-{tournament_id}")).to_be_visible()  # it may try again


def _aggressive(view: table_pb2.TableView, rng: random.Random) -> table_pb2.LegalAction:
    """Completes, bets or raises whenever it may."""
    raises = (table_pb2.ACTION_TYPE_COMPLETE, table_pb2.ACTION_TYPE_BET, table_pb2.ACTION_TYPE_RAISE)
    return next((action for action in view.legal_actions if action.type in raises),
                cautious_strategy(view, rng))


def _folding(view: table_pb2.TableView, rng: random.Random) -> table_pb2.LegalAction:
    """Acts as an absent player is acted for (RULES.md section 7): the bring-in when due, a check when free,
    else folds."""
    kinds = [action.type for action in view.legal_actions]
    for kind in (table_pb2.ACTION_TYPE_BRING_IN, table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_FOLD):
        if kind in kinds:
            return view.legal_actions[kinds.index(kind)]
    return view.legal_actions[0]


async def test_a_player_whose_table_is_broken_is_taken_to_the_table_they_are_moved_to(
    web: WebService, browser: Browser
) -> None:
    """RULES.md section 11, balancing: four players at two tables of two; the player's opponent folds to
    every bet of the player's and is blinded off (the player's moves over the API, the page only watching),
    the other table waits on its long clock. Once the opponent is out, the three left fit at one table: the
    player's table is broken and the player moved, and the page follows the player to the new table."""
    tag = uuid.uuid4().hex[:8]
    tournament_id = f"move-{tag}"
    clients = await _sit_and_go_of_bots(web, tournament_id, f"Moving {tag}", seats=4, stack=100)
    tournament = f"tournaments/{tournament_id}"
    player = f"erin-{tag}"

    async with browser_page(browser) as page:
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, player, Role.PLAYER), player)
        await page.get_by_test_id(f"register-{tournament_id}").click()
        await expect(page).to_have_url(re.compile(rf"#/tables/{tournament_id}-t\d$"))
        me = web.client(player)
        first, my_seat = await _seated_at_tournament_table(me, tournament)
        seats = {name: await _seated_at_tournament_table(client, tournament)
                 for name, client in clients.items()}
        opponent = next(name for name, (table, _) in seats.items() if table == first)
        others = [Bot(clients[name], table, seat, strategy=cautious_strategy, seed=seat)
                  for name, (table, seat) in seats.items() if table != first]
        second = others[0].table_id
        await expect(page.get_by_test_id("tournament-rank")).to_have_text(re.compile(r"^Rank [1-4] of 4$"))

        heads_up = (Bot(me, first, my_seat, strategy=_aggressive, seed=1),
                    Bot(clients[opponent], first, seats[opponent][1], strategy=_folding, seed=2))
        async with running(*(bot.run(10**6) for bot in heads_up)):
            await expect(page).to_have_url(re.compile(rf"#/tables/{second}$"), timeout=WAIT_MS * 4)
        # The hand running there ends (its players act now), and the player is dealt in at the next.
        async with running(*(bot.run(10**6) for bot in others)):
            seat = page.locator(f'.seat[data-player="{player}"]')
            await expect(seat).to_have_class(re.compile(r"\bmine\b"))
            await expect(page.get_by_test_id("players-left")).to_have_text("3 of 4 players left")
            rank = page.get_by_test_id("tournament-rank")
            await expect(rank).to_have_text(re.compile(r"^Rank [1-3] of 3$"))
