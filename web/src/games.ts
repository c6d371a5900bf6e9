// The games a table plays, as the page names and explains them (RULES.md section 13: a mixed table plays the
// games of its rotation in turn; every player knows the game of the next hand and how many of the current
// game remain). The table page's game banner, the lobby's rotation and the replayer's game names come from here.
import { create } from "@bufbuild/protobuf";
import { h } from "./dom";
import { variantName } from "./format";
import type { GameChanged } from "./gen/stud/v1/events_pb";
import { type CurrentGame, CurrentGameSchema, type HandView, type Stakes, type Table, Variant } from "./gen/stud/v1/table_pb";

// The service's count when a table leaves hands_per_game unset (table.proto).
const DEFAULT_HANDS_PER_GAME = 8;

// The short names stud players give the games in a rotation ("Razz / Stud / Stud Hi-Lo").
const SHORT_NAMES: Partial<Record<Variant, string>> = {
  [Variant.SEVEN_CARD_STUD]: "Stud",
  [Variant.STUD_HI_LO]: "Stud Hi-Lo",
  [Variant.RAZZ]: "Razz",
};

/** What a player needs to know of a game before its hands, each with a key (data-hint) tests can find. */
export interface GameHint { key: "bring-in" | "first-to-act" | "winner"; text: string }

const HI_BRING_IN: GameHint = { key: "bring-in", text: "Low card brings in" };
const HI_FIRST: GameHint = { key: "first-to-act", text: "From fourth street the best high board acts first" };
// RULES.md sections 3 to 6.
const HINTS: Partial<Record<Variant, GameHint[]>> = {
  [Variant.SEVEN_CARD_STUD]: [HI_BRING_IN, HI_FIRST, { key: "winner", text: "The best high hand wins" }],
  [Variant.STUD_HI_LO]: [HI_BRING_IN, HI_FIRST, {
    key: "winner",
    text: "High and low split the pot: a low needs five cards 8 or lower (eight or better); no low, high takes it all",
  }],
  [Variant.RAZZ]: [
    { key: "bring-in", text: "High card brings in (aces are low: the king is the highest)" },
    { key: "first-to-act", text: "From fourth street the best low board acts first" },
    { key: "winner", text: "The lowest hand wins: A-2-3-4-5 is best, straights and flushes do not count" },
  ],
};

export function gameHints(game: Variant): GameHint[] {
  return HINTS[game] ?? [];
}

export function shortGameName(game: Variant): string {
  return SHORT_NAMES[game] ?? variantName(game);
}

export function isMixed(table: Pick<Table, "rotation">): boolean {
  return table.rotation.length > 1;
}

function handsPerGame(table: Pick<Table, "handsPerGame">): number {
  return table.handsPerGame || DEFAULT_HANDS_PER_GAME;
}

const hands = (count: number): string => `${count} hand${count === 1 ? "" : "s"}`;

/** "Mixed: Razz / Stud / Stud Hi-Lo, 8 hands each". */
export function rotationText(table: Pick<Table, "rotation" | "handsPerGame">): string {
  return `Mixed: ${table.rotation.map(shortGameName).join(" / ")}, ${hands(handsPerGame(table))} each`;
}

/** A table's or a tournament's game as the lobby lists it: its rotation when mixed, else its game's name. */
export function gamesText(table: Pick<Table, "rotation" | "handsPerGame" | "variant">): string {
  return isMixed(table) ? rotationText(table) : variantName(table.variant);
}

/** What remains of the current game and what follows: "3 hands left, then Seven Card Stud"; "" unmixed. */
export function comingText(current: CurrentGame | undefined): string {
  if (current === undefined || current.handsLeft === 0) return "";
  const left = current.handsLeft === 1 ? "last hand" : `${hands(current.handsLeft)} left`;
  return `${left}, then ${variantName(current.nextGame)}`;
}

/** The lobby's line under a mixed table's rotation: "now Razz, 3 hands left, then Seven Card Stud". */
export function nowPlayingText(table: Table): string {
  const current = table.currentGame;
  if (!isMixed(table) || current === undefined) return "";
  return `now ${variantName(current.game)}, ${comingText(current)}`;
}

/** The stakes the table's current game is played at (a mixed table may give a game its own). */
export function stakesNow(table: Table): Stakes | undefined {
  return table.currentGame?.stakes ?? table.stakes;
}

/** The game the page describes: the running hand's, else the one the next hand will be dealt in. */
export function gameNow(table: Table, hand: HandView | undefined): Variant {
  if (hand !== undefined && !hand.complete && hand.game !== Variant.UNSPECIFIED) return hand.game;
  return table.currentGame?.game || table.variant;
}

/** The game after `game` in the table's rotation (UNSPECIFIED at a table that does not rotate). */
function followingGame(table: Table, game: Variant): Variant {
  const at = table.rotation.indexOf(game);
  return at < 0 ? Variant.UNSPECIFIED : table.rotation[(at + 1) % table.rotation.length];
}

/** The log's line for GameChanged: "Seven Card Stud from hand 9, for 8 hands". */
export function gameChangedText(event: GameChanged): string {
  return `The game changes: ${variantName(event.game)} from hand ${event.afterHand + 1n}, for ${hands(event.hands)}`;
}

/**
 * The table's game, prominent above the felt: its name, what remains of it and what follows at a mixed table,
 * and the hints of that game (who brings in, who acts first, who wins). Kept current by the views, and by a
 * GameChanged event as soon as it arrives.
 */
export function gameBanner(): {
  element: HTMLElement;
  show(table: Table, hand?: HandView): void;
  changed(event: GameChanged, table: Table | undefined): void;
} {
  const name = h("strong", { class: "game-title", "data-testid": "current-game-name" });
  const coming = h("span", { class: "game-coming", "data-testid": "game-coming" });
  const hints = h("ul", { class: "game-hints", "data-testid": "game-hints", "aria-label": "How this game plays" });
  // The game's name and what follows are announced when they change (a mixed table's rotation point).
  const element = h("section", { class: "current-game", "data-testid": "current-game", "aria-label": "Game" },
    h("p", { class: "game-line", "aria-live": "polite" }, name, coming), hints);
  let shown = "";

  function draw(game: Variant, current: CurrentGame | undefined): void {
    const after = comingText(current);
    const key = `${game}|${after}`;
    if (key === shown) return;
    const switched = shown !== "" && !shown.startsWith(`${game}|`);
    shown = key;
    element.dataset.game = Variant[game];
    element.dataset.handsLeft = String(current?.handsLeft ?? 0);
    name.textContent = variantName(game);
    coming.textContent = after ? ` — ${after}` : "";
    hints.replaceChildren(...gameHints(game).map((hint) => h("li", { "data-hint": hint.key }, hint.text)));
    // A moment's highlight where the game has just changed (app.css; none with reduced motion).
    element.classList.toggle("game-switched", switched);
  }

  return {
    element,
    show(table, hand) {
      const game = gameNow(table, hand);
      // While a hand runs, table.current_game is that hand's game (the service's invariant); between hands,
      // the next hand's.
      draw(game, table.currentGame?.game === game ? table.currentGame : undefined);
    },
    changed(event, table) {
      const next = table === undefined ? Variant.UNSPECIFIED : followingGame(table, event.game);
      draw(event.game, create(CurrentGameSchema, { game: event.game, handsLeft: event.hands, nextGame: next }));
    },
  };
}
