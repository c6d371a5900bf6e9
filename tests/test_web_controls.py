"""The web table's own controls in a real browser (the fixtures of test_web_browser.py): a link that carries
a spectator's token, the hand list's pots in the table's currency, the replayer shown to a player, the seat
controls that stay put under the pointer after an action, Leave's confirmation during a hand, and a busted
player's top-up."""

from __future__ import annotations

import asyncio
import re
import urllib.request
import uuid

import pytest
from grpc_fixtures import TOKEN_SECRET, table_spec
from playwright.async_api import Browser, expect
from test_grpc_game import _raise_whenever_possible
from test_web_browser import (
    BUY_IN,
    WAIT_SECONDS,
    WebService,
    _choose,
    _folding,
    bot_name,
    browser_page,
    running,
    sit_down_on_the_page,
    web,  # noqa: F401 (the service these tests share)
)

from stud_service.auth import Role, mint_token
from stud_service.bots.player import Bot, cautious_strategy

# The test id of what lies under a point of the page (the nearest element that has one).
UNDER_THE_POINTER = (
    "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-testid]')?.dataset.testid ?? ''")


async def test_a_link_carrying_a_token_watches_the_table_alone_and_drops_the_token_from_the_address(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    table = await web.new_table()
    for bot in web.bots(table, (1, 2)):
        await bot.sit(BUY_IN)
    token = mint_token(TOKEN_SECRET, "spectator", Role.PLAYER)
    async with browser_page(browser) as page:
        await page.goto(f"{web.url}#/tables/{table}?token={token}")
        await expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        await expect(page.get_by_test_id("seat-1")).to_have_attribute("data-player", re.compile("bot1"))
        await expect(page.get_by_test_id("logged-in")).to_have_attribute("data-player", "spectator")
        assert token not in page.url and page.url.endswith(f"#/tables/{table}")
        await expect(page.get_by_test_id("error")).to_have_count(0)


async def test_a_player_sees_the_hand_lists_pots_in_dollars_and_no_auditor_only_refusal(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    table = f"web-{uuid.uuid4().hex[:10]}"
    operator = web.client("house", Role.OPERATOR)
    await operator.create_table(table, table_spec(play_money=False, currency_code="USD"))
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    for bot in bots:
        await operator.deposit(bot_name(table, bot.seat), BUY_IN, reference=f"{table}-{bot.seat}")
        await bot.sit(BUY_IN)
    async with running(*(bot.run(1) for bot in bots)) as playing:
        await asyncio.wait_for(asyncio.gather(*playing), WAIT_SECONDS)
    player = bot_name(table, 1)
    async with browser_page(browser) as page:
        token = mint_token(TOKEN_SECRET, player, Role.PLAYER)
        await page.goto(f"{web.url}#/tables/{table}/hands?token={token}")
        hand = page.get_by_test_id("hand-1")
        await expect(hand).to_contain_text(re.compile(r"pot \$\d+(\.\d\d)?$"))
        await hand.get_by_role("link").click()
        await expect(page.get_by_test_id("shuffle").locator("h2 [data-passed]")).to_have_attribute(
            "data-passed", "true")
        verification = page.get_by_test_id("verification")
        await expect(verification.get_by_test_id("verification-auditors")).to_be_visible()
        await expect(page.locator("[data-reason=AUDITOR_ONLY]")).to_have_count(0)


async def test_the_seat_controls_stay_put_after_each_action_and_leave_asks_during_a_hand(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    table = await web.new_table()
    player, seat = "erin", 3
    bots = web.bots(table, (1, 2), strategy=cautious_strategy)
    async with browser_page(browser) as page:
        await sit_down_on_the_page(page, web, table, player, seat)
        for bot in bots:
            await bot.sit(BUY_IN)
        actions = page.get_by_test_id("actions")
        controls = page.get_by_test_id("seat-controls")
        async with running(*(bot.run(10**6) for bot in bots)):
            for _ in range(4):
                await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
                before = await controls.bounding_box()
                offered = actions.locator("button[data-action]")
                names = await offered.evaluate_all("all => all.map(b => b.dataset.action)")
                choice = actions.locator(f'button[data-action="{_choose(names)}"]')
                box = await choice.bounding_box()
                assert box is not None and before is not None
                turn = await actions.get_attribute("data-turn")
                await choice.click()
                await expect(actions).not_to_have_attribute("data-turn", turn or "")
                assert await controls.bounding_box() == before, "the seat controls moved after the click"
                middle = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
                under = await page.evaluate(UNDER_THE_POINTER, middle)
                assert under not in ("sit-out", "sit-in", "leave", "seat-controls"), under
                leave = await page.get_by_test_id("leave").bounding_box()
                assert leave is not None and leave["y"] + leave["height"] < box["y"], "Leave is far above"
            # During a hand the player holds cards in, Leave asks first; "Stay" keeps the seat.
            await expect(actions.locator("button[data-action]:enabled").first).to_be_visible()
            await page.get_by_test_id("leave").click()
            await expect(page.get_by_test_id("leave-confirm")).to_be_visible()
            await page.get_by_test_id("leave-cancel").click()
            await expect(page.get_by_test_id("leave")).to_be_visible()
            assert any(s.player_id == player for s in (await web.client(player).view(table)).seats)


@pytest.mark.long
@pytest.mark.timeout(600)
async def test_a_busted_player_is_offered_a_top_up_not_sit_in_and_tops_up_on_the_page(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    table = await web.new_table()
    player, seat = "frank", 2
    async with browser_page(browser) as page:
        await sit_down_on_the_page(page, web, table, player, seat, buy_in="2000")  # the minimum
        # The player's seat is played by a bot under its name that acts as for an absent player (the
        # bring-in, a free check, else a fold): the antes and bring-ins (multiples of 50) take its 2,000 in
        # some thirty hands, where a player all in each hand against another busts after a number of hands
        # with no useful bound (an even game's random walk).
        mine = Bot(web.client(player), table, seat, strategy=_folding, seed=seat,
                   sit_in_when_out=False)
        other = Bot(web.client("gina"), table, 1, strategy=_raise_whenever_possible, seed=1,
                    top_up_when_busted=BUY_IN)
        await other.sit(BUY_IN)

        async def busted() -> bool:
            view = await web.client(player).view(table)
            return any(s.seat == seat and s.stack == 0 and s.sitting_out for s in view.seats)

        async with running(mine.run(10**6), other.run(10**6)):
            deadline = asyncio.get_running_loop().time() + WAIT_SECONDS * 15
            while not await busted():
                assert asyncio.get_running_loop().time() < deadline, "the player never busted"
                await asyncio.sleep(0.1)
        controls = page.get_by_test_id("seat-controls")
        await expect(page.get_by_test_id("top-up")).to_be_visible()
        await expect(controls.get_by_test_id("sit-in")).to_have_count(0)
        await expect(page.get_by_test_id("top-up-amount")).to_have_value("2000")  # the minimum buy-in
        await page.get_by_test_id("top-up").click()
        await expect(page.get_by_test_id(f"seat-{seat}-stack")).to_contain_text("2,000")
        await expect(controls.get_by_test_id("sit-in")).to_be_visible()
        await expect(page.get_by_test_id("error")).to_have_count(0)


async def test_the_site_icon_is_served_and_a_page_load_logs_no_console_error(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    for path in ("favicon.ico", "favicon.svg"):
        with await asyncio.to_thread(urllib.request.urlopen, web.url + path, timeout=10) as reply:
            assert reply.status == 200 and reply.headers["content-type"] == "image/svg+xml"
            assert b"<svg" in reply.read()
    async with browser_page(browser) as page:
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        await page.goto(web.url)
        await expect(page.get_by_test_id("lobby")).to_be_visible()
        await page.wait_for_load_state("networkidle")
        assert errors == []
