// Cards as the API codes them (table.proto): code = rank_index * 4 + suit_index, suits in bridge order.
import { h } from "./dom";

const RANKS = "23456789TJQKA";
const RANK_NAMES = ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
  "king", "ace"];
const SUITS = "cdhs";
const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
const SUIT_SYMBOLS = ["♣", "♦", "♥", "♠"];

/** "As" for the ace of spades (code 51). */
export function cardText(code: number): string {
  return RANKS[Math.floor(code / 4)] + SUITS[code % 4];
}

/** "ace of spades". */
export function cardName(code: number): string {
  return `${RANK_NAMES[Math.floor(code / 4)]} of ${SUIT_NAMES[code % 4]}`;
}

/** "A♠", for text that is read rather than drawn. */
export function cardLabel(code: number): string {
  const rank = RANKS[Math.floor(code / 4)];
  return (rank === "T" ? "10" : rank) + SUIT_SYMBOLS[code % 4];
}

/**
 * A card the page was sent. Four colours (one per suit) and the suit's symbol, so colour is never the only
 * cue; screen readers get the card's name.
 */
export function cardFace(code: number, faceUp: boolean): HTMLElement {
  const rank = RANKS[Math.floor(code / 4)];
  const suit = code % 4;
  return h(
    "span",
    {
      class: `card suit-${SUITS[suit]}${faceUp ? "" : " down"}`,
      "data-card": cardText(code),
      role: "img",
      "aria-label": `${cardName(code)}${faceUp ? "" : ", face down"}`,
    },
    h("span", { class: "rank", "aria-hidden": "true" }, rank === "T" ? "10" : rank),
    h("span", { class: "suit", "aria-hidden": "true" }, SUIT_SYMBOLS[suit]),
  );
}

/** A face-down card the viewer may not see: the page only knows that it exists. */
export function cardBack(): HTMLElement {
  return h("span", { class: "card back", role: "img", "aria-label": "face-down card" });
}
