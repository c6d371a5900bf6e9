"""The web table laid out as a card room's, in a real browser (the fixtures of test_web_browser.py): the
pot with the street's bets, the countdown bar on the seat to act, pre-actions that act on the player's turn,
the phone layout, the hand history's downloads and Leave's confirmation. Screenshots of a dollar table at
1280×800 and 390×844 go to test-output/screenshots/ (docs/images/ holds one run's copies)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import uuid
from collections.abc import AsyncIterator, Callable

from grpc_fixtures import TOKEN_SECRET, table_spec
from playwright.async_api import Browser, Page, expect
from test_web_browser import (
    BUY_IN,
    WAIT_MS,
    WAIT_SECONDS,
    WebService,
    _click_a_passive_action,
    bot_name,
    browser_page,
    log_in,
    running,
    save_screenshot,
    shown_version,
    sit_down_on_the_page,
    until,
    web,  # noqa: F401 (the service these tests share)
)

from stud_service.auth import Role, mint_token
from stud_service.bots import StudClient
from stud_service.bots.client import events_of
from stud_service.bots.player import Bot, cautious_strategy
from stud_service.server.proto_gen import audit_service_pb2, table_pb2

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
DOLLARS = 100_000  # each player's deposit, in cents
BUY_IN_DOLLARS = "200"  # typed in the page's form: $200.00 (the table's buy-ins are $20 to $400)
PASSIVE_OR_FOLD = {table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_FOLD}
PASSIVE_OR_CALL = {table_pb2.ACTION_TYPE_CHECK, table_pb2.ACTION_TYPE_CALL}


async def dollar_table(web: WebService, players: list[str], action_clock: int = 300) -> str:  # noqa: F811
    """A $2/$4 table in dollars with a 5% rake, every player funded."""
    table = f"web-{uuid.uuid4().hex[:10]}"
    operator = web.client("house", Role.OPERATOR)
    rake = table_pb2.RakeRule(basis_points=500, cap_2_players=100, cap_3_to_4_players=200,
                              cap_5_or_more_players=300)
    await operator.create_table(table, table_spec(play_money=False, currency_code="USD", rake=rake,
                                                  action_clock=action_clock, display_name="Evening stud"))
    for player in players:
        await operator.deposit(player, DOLLARS, reference=f"{table}-{player}")
    return table


@contextlib.asynccontextmanager
async def playing_at_a_dollar_table(web: WebService, browser: Browser, viewport: dict[str, int],  # noqa: F811
                                    player: str, seat: int, bots: dict[int, str],
                                    action_clock: int = 300) -> AsyncIterator[tuple[Page, str]]:
    """A page where ``player`` sat down in ``seat`` at a new dollar table, and cautious bots (by seat) playing
    there over the API while the block runs: the page and the table."""
    table = await dollar_table(web, [player, *bots.values()], action_clock)
    playing = [Bot(web.client(name), table, number, strategy=cautious_strategy, seed=number)
               for number, name in bots.items()]
    async with browser_page(browser, viewport) as page:
        await sit_down_on_the_page(page, web, table, player, seat, BUY_IN_DOLLARS)
        for bot in playing:
            await bot.sit(20_000)
        async with running(*(bot.run(10**6) for bot in playing)):
            yield page, table


def dollars(cents: int) -> str:
    return f"${cents // 100:,}.{cents % 100:02d}"


async def seat_actions(client: StudClient, table: str, seat: int, after: int, count: int = 1,
                       stop: Callable[[table_pb2.ActionType], bool] = lambda _: False) -> list[int]:
    """The actions ``seat`` takes after version ``after``, read from the table's log: ``count`` of them, or
    up to the first that ``stop`` accepts."""
    taken: list[int] = []
    stream = client.watch(table, after_version=after, batch_events=True)
    try:
        async for message in stream:
            for event in events_of(message):
                acted = event.player_acted
                if event.WhichOneof("event") == "player_acted" and acted.seat == seat:
                    taken.append(acted.action)
                    if len(taken) >= count or stop(acted.action):
                        return taken
    finally:
        stream.cancel()
    raise AssertionError("the watch ended")


async def my_turn_or_pre_actions(page: Page) -> None:
    """Until the pre-actions show (the player holds cards and another seat is to act): the player's own turns
    in the meantime are played with a passive click."""
    actions = page.get_by_test_id("actions")
    boxes = page.get_by_test_id("pre-actions")
    buttons = actions.locator("button[data-action]:enabled")
    while True:
        await expect(boxes.or_(buttons.first)).to_be_visible()
        if await boxes.is_visible():
            return
        await _click_a_passive_action(page)


def _aggressive_bot(view: table_pb2.TableView, rng: object) -> table_pb2.LegalAction:
    """Bets or raises whenever it may (the player then faces a bet), else checks or calls."""
    raises = (table_pb2.ACTION_TYPE_BET, table_pb2.ACTION_TYPE_RAISE, table_pb2.ACTION_TYPE_COMPLETE)
    return next((action for action in view.legal_actions if action.type in raises),
                cautious_strategy(view, rng))  # type: ignore[arg-type]


async def test_pre_actions_act_on_the_players_turn_without_a_click(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """"Call any" ticked while another seat acts calls (or checks) when the turn comes, and is then cleared;
    "fold to any bet" checks while it may and folds to the first bet, with no click on an action button."""
    table = await web.new_table()
    player, seat = "paula", 3
    # The bots think a moment, so the page shows the pre-actions between the player's turns.
    bots = [Bot(web.client(bot_name(table, number)), table, number, strategy=strategy, seed=number,
                think_seconds=1.0) for number, strategy in ((1, _aggressive_bot), (2, cautious_strategy))]
    auditor = web.client("auditor", Role.AUDITOR)
    async with browser_page(browser) as page:
        await sit_down_on_the_page(page, web, table, player, seat)
        for bot in bots:
            await bot.sit(BUY_IN)
        async with running(*(bot.run(10**6) for bot in bots)):
            await my_turn_or_pre_actions(page)
            call_any = page.get_by_test_id("pre-call-any")
            await call_any.check()
            ticked = await shown_version(page) or 0
            taken = await asyncio.wait_for(seat_actions(auditor, table, seat, ticked), WAIT_SECONDS)
            assert set(taken) <= PASSIVE_OR_CALL, taken
            await my_turn_or_pre_actions(page)
            await expect(page.get_by_test_id("pre-call-any")).not_to_be_checked()  # for one turn only

            await page.get_by_test_id("pre-fold-any").check()
            ticked = await shown_version(page) or 0
            folds = seat_actions(auditor, table, seat, ticked, count=20,
                                 stop=lambda action: action == table_pb2.ACTION_TYPE_FOLD)
            taken = await asyncio.wait_for(folds, WAIT_SECONDS * 2)
            assert set(taken) <= PASSIVE_OR_FOLD and taken[-1] == table_pb2.ACTION_TYPE_FOLD, taken


async def test_the_pot_shows_the_streets_bets_and_the_clock_counts_down_on_the_seat_to_act(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """At a dollar table: "Pot $x + bets $y" as the player's own view holds them, a countdown bar on the seat
    to act that shrinks as the clock runs, the table's information, sounds off until turned on, no animation
    under prefers-reduced-motion, and a log naming players, newest first."""
    player, seat = "quinn", 3
    async with playing_at_a_dollar_table(web, browser, DESKTOP, player, seat, {1: "rita", 2: "sam"},
                                         action_clock=40) as (page, table):
        actions = page.get_by_test_id("actions")
        while True:  # the player's turn facing a bet (the bring-in faces none: the antes are in the pot)
            await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
            view = await web.client(player).view(table)
            pot = sum(p.amount for p in view.hand.pots)
            bets = sum(s.street_bet for s in view.seats)
            if bets > 0:
                break
            await expect(page.get_by_test_id("pot-total")).to_have_text(f"Pot {dollars(pot)}")
            await _click_a_passive_action(page)
        bar = page.get_by_test_id(f"seat-{seat}-clock")
        await expect(bar).to_be_visible()
        await expect(page.locator(".clock-bar")).to_have_count(1)  # on the seat to act alone
        pot_text = f"Pot {dollars(pot)} + bets {dollars(bets)}"
        await expect(page.get_by_test_id("pot-total")).to_have_text(pot_text)
        for bettor in (s for s in view.seats if s.street_bet):
            await expect(page.get_by_test_id(f"seat-{bettor.seat}-bet")).to_have_text(
                f"bet {dollars(bettor.street_bet)}")
        full = await bar.locator(".clock-fill").evaluate("e => e.getBoundingClientRect().width")
        first = int(await bar.get_attribute("data-seconds") or 0)
        assert 30 < first <= 40, first
        await expect(bar).not_to_have_attribute("data-seconds", str(first), timeout=WAIT_MS)
        await page.wait_for_timeout(1500)
        later = await bar.locator(".clock-fill").evaluate("e => e.getBoundingClientRect().width")
        assert later < full, (full, later)
        await page.get_by_test_id("table-info").locator("summary").click()
        info = page.get_by_test_id("table-info-list")
        await expect(info).to_contain_text("5% of each pot, at most $1.00 (2 players)")
        await expect(info).to_contain_text("Action clock40 s")
        await expect(info).to_contain_text("Seats3 of 8 taken")
        await page.get_by_test_id("table-info").locator("summary").click()
        await save_screenshot(page, "web-table")
        # Sounds are off until the player turns them on; a person asking for less motion gets none.
        toggle = page.get_by_test_id("sound-toggle")
        await expect(toggle).to_have_attribute("aria-pressed", "false")
        await toggle.click()
        await expect(toggle).to_have_attribute("aria-pressed", "true")
        motion = """() => ["card dealt", "chips raised"].map((name) => {
            const probe = document.createElement("span");
            probe.className = name;
            document.body.append(probe);
            const animation = getComputedStyle(probe).animationName;
            probe.remove();
            return animation; })"""
        assert await page.evaluate(motion) == ["deal-in", "chips-in"]
        await page.emulate_media(reduced_motion="reduce")
        assert await page.evaluate(motion) == ["none", "none"]
        log = page.get_by_test_id("event-log").locator("li")
        await expect(log.first).to_contain_text(re.compile(r"rita|sam|quinn"))
        numbers = await log.evaluate_all("all => all.map(li => li.value)")
        assert numbers == list(range(numbers[0], numbers[0] - len(numbers), -1)), numbers
        await expect(page.locator("main")).not_to_contain_text(re.compile(r"version \d"))


async def test_on_a_phone_the_pot_own_cards_clock_and_buttons_are_on_one_screen(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """390×844 at a full table of eight: without scrolling, the pot, the player's own cards, the clock and the
    action buttons are all in the window, and nothing scrolls sideways."""
    player, seat = "tess", 5
    others = {number: f"p{number}-{uuid.uuid4().hex[:4]}" for number in (1, 2, 3, 4, 6, 7, 8)}
    async with playing_at_a_dollar_table(web, browser, PHONE, player, seat, others) as (page, _):
        actions = page.get_by_test_id("actions")
        await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
        await page.evaluate("window.scrollTo(0, 0)")
        cards = page.get_by_test_id(f"seat-{seat}-cards").locator(".card")
        await expect(cards.and_(page.locator("[data-card]")).first).to_be_visible()
        await save_screenshot(page, "web-table-phone")
        on_screen = [page.get_by_test_id("pot-total"), page.get_by_test_id("action-clock"),
                     page.get_by_test_id(f"seat-{seat}-clock"), *[cards.nth(i) for i in range(3)],
                     *[actions.locator("button[data-action]").nth(i)
                       for i in range(await actions.locator("button[data-action]").count())]]
        for element in on_screen:
            await expect(element).to_be_in_viewport(ratio=1)
        assert await page.evaluate("window.scrollY") == 0
        widths = await page.evaluate("[document.scrollingElement.scrollWidth, window.innerWidth]")
        assert widths[0] <= widths[1], widths


async def _export(client: StudClient, table: str, hand: int, kind: int) -> str:
    request = audit_service_pb2.ExportHandHistoryRequest(name=f"tables/{table}/hands/{hand}", format=kind)
    return (await client.audit.ExportHandHistory(request, metadata=client.metadata)).text


async def test_the_hands_history_downloads_as_pokerstars_text_and_phh_and_leave_asks_first(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """Once a hand the player was dealt into is over, its history downloads from the page, the same text the
    export gives the player; during the next hand, Leave asks, and "Leave after this hand" takes the player
    away once it ends."""
    player, seat = "uma", 2
    async with playing_at_a_dollar_table(web, browser, DESKTOP, player, seat, {1: "vic"}) as (page, table):
        actions = page.get_by_test_id("actions")
        downloads = page.get_by_test_id("downloads")
        while not await downloads.is_visible():
            buttons = actions.locator("button[data-action]:enabled")
            await expect(buttons.first.or_(downloads)).to_be_visible()
            if await downloads.is_visible():
                break
            await _click_a_passive_action(page)
        hand = int(await page.get_by_test_id("last-result").get_attribute("data-hand") or 0)
        me = web.client(player)
        for testid, kind, suffix in (
            ("download-pokerstars", audit_service_pb2.HISTORY_FORMAT_POKERSTARS, "txt"),
            ("download-phh", audit_service_pb2.HISTORY_FORMAT_PHH, "phh"),
        ):
            async with page.expect_download() as caught:
                await page.get_by_test_id(testid).click()
            download = await caught.value
            assert download.suggested_filename == f"{table}-hand-{hand}.{suffix}"
            text = (await download.path()).read_text(encoding="utf-8")
            assert text == await _export(me, table, hand, kind)
        assert "PokerStars" in text or "variant" in text

        # The next hand: the player holds cards in it, so Leave asks first.
        async def dealt_in() -> bool:
            view = await me.view(table)
            mine = [s for s in view.seats if s.seat == seat]
            running = view.hand.hand_number > hand and not view.hand.complete
            return running and bool(mine) and mine[0].in_hand
        await until(dealt_in, "the player is dealt into the next hand")
        await page.get_by_test_id("leave").click()
        confirm = page.get_by_test_id("leave-confirm")
        await expect(confirm).to_be_visible()
        await expect(page.get_by_role("alertdialog")).to_contain_text("You are in this hand")
        await confirm.click()

        # A player who asked to leave checks or folds at once: the hand ends and the seat is free.
        await expect(page.get_by_test_id(f"seat-{seat}")).not_to_have_attribute(
            "data-player", player, timeout=WAIT_MS * 2)
        assert all(s.player_id != player for s in (await me.view(table)).seats)


# From before the page's own script: each view it draws (a draw writes the facts line's data-version), each
# hand result it shows (the last-result panel's data-hand), and every interval between two animation frames in
# which it drew more than frames.ts allows: one draw a frame, one more for each hand result shown (drawn at
# once when the next hand comes first), and one for each DRAW_TIMER_MS the interval lasted (frames.ts's timer
# draws when no frame comes).
DRAW_TIMER_MS = 250
DRAW_COUNTER = r"""
window.__results = []; window.__crowded = []; window.__frames = 0;
let draws = 0, results = 0, last = performance.now();
const countFrame = (now) => {
  const allowed = 1 + results + Math.floor((now - last) / DRAW_TIMER_MS);
  if (draws > allowed) window.__crowded.push({ draws, results, ms: Math.round(now - last) });
  draws = 0; results = 0; last = now; window.__frames += 1;
  requestAnimationFrame(countFrame);
};
requestAnimationFrame(countFrame);
new MutationObserver((records) => {
  for (const record of records) {
    const shown = record.target.dataset;
    if (shown.testid === "table-facts") draws += 1;
    if (shown.testid === "last-result") { results += 1; window.__results.push(Number(shown.hand)); }
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-version", "data-hand"] });
""".replace("DRAW_TIMER_MS", str(DRAW_TIMER_MS))


async def test_a_page_at_a_fast_table_draws_at_the_screens_pace_and_shows_every_hands_result(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """Bots playing at full speed send views faster than a page can lay each out; drawing every one kept the
    page's thread busy and its clicks waiting. It draws the newest view once a frame (frames.ts), and still
    every hand's result."""
    table = await web.new_table()
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    for bot in bots:
        await bot.sit(BUY_IN)
    auditor = web.client("auditor", Role.AUDITOR)
    async with browser_page(browser) as page:
        await page.add_init_script(DRAW_COUNTER)
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, "railbird", Role.PLAYER), "railbird")
        await page.get_by_test_id(f"open-table-{table}").click()
        await expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        async with running(*(bot.run(10**6) for bot in bots)):
            async def many_hands() -> bool:
                return (await auditor.view(table)).hand.hand_number >= 25
            await until(many_hands, "the bots have played 25 hands", timeout=WAIT_SECONDS * 4)
        await expect(page.get_by_test_id("hand-number")).to_have_text(
            f"Hand {(await auditor.view(table)).hand.hand_number}")
        frames, crowded, results = await page.evaluate(
            "[window.__frames, window.__crowded, window.__results]")
    shown = set(results)
    assert max(shown) - min(shown) >= 20, results
    assert shown == set(range(min(shown), max(shown) + 1)), f"a hand's result was never shown: {results}"
    assert crowded == [], f"drawn more often than frames.ts allows in {len(crowded)} of {frames} frames"


async def test_a_seated_player_tops_up_from_the_page_between_hands(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    """Top up waits while the player is dealt into the running hand (the service would refuse HAND_RUNNING);
    once they sit out of the hands, it adds the amount typed to their stack."""
    player, seat = "wes", 2
    bots = {1: "xena", 3: "yuri"}
    async with playing_at_a_dollar_table(web, browser, DESKTOP, player, seat, bots) as (page, _):
        await page.get_by_test_id("sit-out").click()
        await expect(page.get_by_test_id("sit-in")).to_be_visible()
        opener = page.locator('[data-testid="top-up-open"]:enabled')
        buttons = page.get_by_test_id("actions").locator("button[data-action]:enabled")
        while not await opener.is_visible():  # the player plays out the hand they were dealt into
            await expect(buttons.first.or_(opener)).to_be_visible()
            if await buttons.first.is_visible():
                await _click_a_passive_action(page)
        await opener.click()
        await page.get_by_test_id("top-up-amount").fill("50")
        stack = page.get_by_test_id(f"seat-{seat}-stack")
        before = await stack.text_content() or ""
        await page.get_by_test_id("top-up").click()
        await expect(stack).not_to_have_text(before)
        cents = int(re.sub(r"[^\d]", "", before.removeprefix("Stack ")))
        await expect(stack).to_have_text(f"Stack {dollars(cents + 5_000)}")
        await expect(page.get_by_test_id("error")).to_have_count(0)
