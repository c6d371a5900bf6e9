"""A mixed table (RULES.md section 13) in a real browser (the fixtures of test_web_browser.py): the lobby
lists its rotation and the game it plays now; at the table the game's name, what remains of it and its hints
change at the rotation point, as bots play through the whole service; the replayer names each hand's game."""

from __future__ import annotations

import asyncio
import uuid

from grpc_fixtures import TOKEN_SECRET, table_spec
from playwright.async_api import Browser, Page, expect
from test_web_browser import (
    BUY_IN,
    WAIT_SECONDS,
    WebService,
    browser_page,
    log_in,
    running,
    save_screenshot,
    web,  # noqa: F401 (the service these tests share)
)

from stud_service.auth import Role, mint_token
from stud_service.bots.player import Bot
from stud_service.server.proto_gen import table_pb2

ROTATION = (table_pb2.VARIANT_RAZZ, table_pb2.VARIANT_SEVEN_CARD_STUD, table_pb2.VARIANT_STUD_HI_LO)
HANDS_PER_GAME = 2


async def mixed_table(web: WebService) -> str:  # noqa: F811
    """Razz, Stud and Stud Hi-Lo, two hands each; a long clock, so a hand waits for the bots' next run."""
    table = f"web-mix-{uuid.uuid4().hex[:8]}"
    spec = table_spec(variant=ROTATION[0], action_clock=300, hands_per_game=HANDS_PER_GAME)
    spec.rotation.extend(ROTATION)
    await web.client("house", Role.OPERATOR).create_table(table, spec)
    return table


async def play(bots: list[Bot], hands: int) -> None:
    """The bots play ``hands`` more hands to their end; the next one is dealt and waits for them."""
    # A bot's run counts the hands it has seen since it was made.
    async with running(*(bot.run(bot.stats.hands_seen + hands) for bot in bots)) as playing:
        await asyncio.wait_for(asyncio.gather(*playing), WAIT_SECONDS * hands)


async def shows_game(page: Page, hand: int, game: str, name: str, coming: str, bring_in: str) -> None:
    """The page shows ``hand`` dealt, and above the felt its game, what follows, and who brings in."""
    await expect(page.get_by_test_id("hand-number")).to_have_text(f"Hand {hand}")
    banner = page.get_by_test_id("current-game")
    await expect(banner).to_have_attribute("data-game", game)
    await expect(page.get_by_test_id("current-game-name")).to_have_text(name)
    await expect(page.get_by_test_id("game-coming")).to_have_text(f" — {coming}")
    hint = page.get_by_test_id("game-hints").locator('[data-hint="bring-in"]')
    await expect(hint).to_contain_text(bring_in)


async def test_a_mixed_tables_game_and_hints_change_at_the_rotation_point_and_the_lobby_shows_its_rotation(
    web: WebService, browser: Browser  # noqa: F811
) -> None:
    table = await mixed_table(web)
    bots = [Bot(web.client(f"mixbot{seat}-{table[-4:]}"), table, seat, seed=seat) for seat in (1, 2, 3)]
    async with browser_page(browser) as page:
        await page.goto(web.url)
        await expect(page.get_by_test_id(f"game-{table}")).to_contain_text(
            "Mixed: Razz / Stud / Stud Hi-Lo, 2 hands each")
        await expect(page.get_by_test_id(f"current-game-{table}")).to_have_text(
            "now Razz, 2 hands left, then Seven Card Stud")

        await log_in(page, mint_token(TOKEN_SECRET, "railbird", Role.PLAYER), "railbird")
        await page.get_by_test_id(f"open-table-{table}").click()
        await expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "live")
        for bot in bots:
            await bot.sit(BUY_IN)
        # Razz: the table's first game, whose high card brings in.
        await shows_game(page, 1, "RAZZ", "Razz", "2 hands left, then Seven Card Stud", "High card brings in")
        await expect(page.get_by_test_id("table-facts")).to_contain_text("Mixed: Razz / Stud / Stud Hi-Lo")
        await play(bots, 1)
        await shows_game(page, 2, "RAZZ", "Razz", "last hand, then Seven Card Stud", "High card brings in")
        await expect(page.get_by_test_id("game-hints").locator('[data-hint="winner"]')).to_contain_text(
            "lowest hand wins")

        # The rotation point: Razz's last hand ends, the table says so, and the next hand is Seven Card
        # Stud's, whose low card brings in (the table's variant stays Razz, the rotation's first game).
        await play(bots, 1)
        await shows_game(page, 3, "SEVEN_CARD_STUD", "Seven Card Stud", "2 hands left, then Stud Hi-Lo",
                         "Low card brings in")
        await expect(page.get_by_test_id("event-log")).to_contain_text(
            "The game changes: Seven Card Stud from hand 3, for 2 hands")
        await expect(page.get_by_test_id("game-hints").locator('[data-hint="winner"]')).to_have_text(
            "The best high hand wins")
        await play(bots, 2)
        await shows_game(page, 5, "STUD_HI_LO", "Stud Hi-Lo", "2 hands left, then Razz", "Low card brings in")
        await expect(page.get_by_test_id("game-hints").locator('[data-hint="winner"]')).to_contain_text(
            "eight or better")
        await save_screenshot(page, "web-mixed-table")

        await page.goto(web.url)
        await expect(page.get_by_test_id(f"current-game-{table}")).to_have_text(
            "now Stud Hi-Lo, 2 hands left, then Razz")

    # The replayer names each hand's game (an auditor sees every hand).
    async with browser_page(browser) as page:
        await page.goto(web.url)
        await log_in(page, mint_token(TOKEN_SECRET, "inspector", Role.AUDITOR), "inspector")
        await page.goto(f"{web.url}#/tables/{table}/hands")
        stud = ("SEVEN_CARD_STUD", "Seven Card Stud")
        for hand, (game, name) in ((1, ("RAZZ", "Razz")), (2, ("RAZZ", "Razz")), (3, stud), (4, stud)):
            listed = page.get_by_test_id(f"hand-{hand}")
            await expect(listed).to_have_attribute("data-game", game)
            await expect(listed).to_contain_text(f" · {name} · ")
        await page.get_by_test_id("hand-3").get_by_role("link").click()
        await expect(page.get_by_test_id("replay-game")).to_have_attribute("data-game", "SEVEN_CARD_STUD")
        await expect(page.get_by_test_id("replay-game")).to_have_text("Played as Seven Card Stud")
        await expect(page.get_by_test_id("replay-step")).to_contain_text("Hand 3 (Seven Card Stud) starts")
