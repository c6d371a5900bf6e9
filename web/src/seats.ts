// Draws a TableView as a card room's table: an oval with the seats around it (the viewer's at the bottom),
// each seat's bet in chips in front of it, and the pot, the street and the result in the middle. Only what the
// view holds is drawn: a card the viewer may not see is a back without data-card, since the page never had it.
import { cardBack, cardFace } from "./cards";
import { h } from "./dom";
import { money, seatName, secondsText, streetName } from "./format";
import type { HandView, SeatView, TableView } from "./gen/stud/v1/table_pb";
import { PotHalf, SitOutReason } from "./gen/stud/v1/table_pb";

export interface SeatHooks {
  /** Content for an open seat (a "Sit here" button), or nothing. */
  openSeat?: (seat: number) => Node | null;
  /** How many of each seat's cards were dealt since the last drawing (they arrive with a short animation). */
  newCards?: (seat: number, count: number) => number;
  /** Whether the seat's bet on this street grew since the last drawing (its chips arrive with a short one). */
  betGrew?: (seat: number, bet: bigint) => boolean;
}

// Why a seat sits out, as the table says it (the player's own limits: docs/player-protection.md).
const SIT_OUT_LABELS = new Map<SitOutReason, string>([
  [SitOutReason.BUSTED, "busted"],
  [SitOutReason.TIMED_OUT, "sitting out (timed out)"],
  [SitOutReason.LOSS_LIMIT, "sitting out (loss limit reached)"],
  [SitOutReason.SESSION_LIMIT, "sitting out (session time limit reached)"],
  [SitOutReason.INACTIVE, "sitting out (inactive)"],
]);

function seatStatus(seat: SeatView): string {
  if (seat.sittingOut) {
    return SIT_OUT_LABELS.get(seat.sitOutReason) ?? "sitting out";
  }
  if (seat.allIn) return "all in";
  if (seat.folded) return "folded";
  if (seat.shown) return "shown";
  return seat.inHand ? "in hand" : "waiting for the next hand";
}

/** Every card of the seat, as many as were drawn before and the new ones marked to arrive with motion. */
function seatCards(seat: SeatView, hooks: SeatHooks): HTMLElement {
  // Down cards first (the two hole cards), then the up cards in the order dealt, as at a real table.
  const cards = [
    // Shown at showdown: down_cards then holds every card, and everyone sees them.
    ...seat.downCards.map((code) => cardFace(code, seat.shown)),
    ...Array.from({ length: seat.hiddenDownCards }, () => cardBack()),
    ...seat.upCards.map((code) => cardFace(code, true)),
  ];
  const fresh = hooks.newCards?.(seat.seat, cards.length) ?? 0;
  cards.slice(cards.length - fresh).forEach((card) => card.classList.add("dealt"));
  return h("div", { class: "cards", "data-testid": `seat-${seat.seat}-cards` }, cards);
}

/** Where seat `number` sits, as the direction from the table's middle (app.css places the seat on the rail and
 * its chips halfway in): the viewer's seat (or seat 1, for a spectator) at the bottom, the others clockwise. */
function placement(number: number, count: number, bottom: number): string {
  const angle = Math.PI / 2 + ((number - bottom + count) % count) * (2 * Math.PI / count);
  return `--sx:${Math.cos(angle).toFixed(4)};--sy:${Math.sin(angle).toFixed(4)}`;
}

function seatBox(view: TableView, number: number, seat: SeatView | undefined, hooks: SeatHooks): HTMLElement {
  const currency = view.table?.currencyCode ?? "";
  const toAct = view.hand !== undefined && !view.hand.complete && view.hand.toActSeat === number;
  const classes = ["seat", seat === undefined ? "open" : "", toAct ? "to-act" : "",
    number === view.viewerSeat ? "mine" : "", seat?.folded ? "folded" : ""].filter(Boolean).join(" ");
  const style = placement(number, view.table?.maxSeats || Math.max(number, 2), view.viewerSeat || 1);
  if (seat === undefined) {
    return h("li", { class: classes, "data-testid": `seat-${number}`, "data-seat": number, style },
      h("div", { class: "seat-head" }, h("span", { class: "seat-number" }, `Seat ${number}`), " open"),
      hooks.openSeat?.(number) ?? null);
  }
  const bet = seat.streetBet > 0n ? money(seat.streetBet, currency) : "";
  return h(
    "li",
    {
      class: classes,
      "data-testid": `seat-${number}`,
      "data-seat": number,
      "data-player": seat.playerId,
      "aria-current": toAct ? "true" : undefined,
      style,
    },
    h("div", { class: "seat-head" },
      h("span", { class: "seat-number", title: `Seat ${number}` }, h("span", { class: "visually-hidden" }, "Seat "),
        String(number)),
      h("span", { class: "player", "data-testid": `seat-${number}-player` }, seat.playerId),
      number === view.viewerSeat ? h("span", { class: "badge" }, "you") : null,
      toAct ? h("span", { class: "badge turn" }, "to act") : null),
    h("div", { class: "seat-money" },
      h("span", { "data-testid": `seat-${number}-stack` }, `Stack ${money(seat.stack, currency)}`)),
    h("div", { class: "seat-status" }, seatStatus(seat),
      // RULES.md section 7: the seat's time bank reserve, at a table that has one.
      seat.timeBank ? [" · ", h("span", { class: "seat-time-bank", "data-testid": `seat-${number}-time-bank` },
        `Time bank ${secondsText(seat.timeBank)}`)] : null),
    seatCards(seat, hooks),
    // The countdown of the seat to act (table.ts moves it as the clock runs).
    toAct ? h("div", { class: "clock-bar", "data-testid": `seat-${number}-clock`, "aria-hidden": "true" },
      h("span", { class: "clock-fill" })) : null,
    // The street's bet, in chips in front of the seat.
    bet ? h("div", { class: hooks.betGrew?.(number, seat.streetBet) ? "chips raised" : "chips", "data-testid": `seat-${number}-bet`, "data-amount": String(seat.streetBet) },
      h("span", { class: "chip-stack", "aria-hidden": "true" }), h("span", { class: "visually-hidden" }, "bet "), bet)
      : null,
  );
}

/** The seats, 1..max_seats, open ones included, around the oval. */
export function seatList(view: TableView, hooks: SeatHooks = {}): HTMLElement {
  const bySeat = new Map(view.seats.map((seat) => [seat.seat, seat]));
  const count = view.table?.maxSeats ?? Math.max(0, ...bySeat.keys());
  return h("ol", { class: "seats", "data-testid": "seats", "aria-label": "Seats" },
    Array.from({ length: count }, (_, index) => seatBox(view, index + 1, bySeat.get(index + 1), hooks)));
}

/** The whole table: the oval, the middle (`middle`: the hand's summary, and whatever the page adds), the seats. */
export function tableOval(view: TableView, middle: Node[], hooks: SeatHooks = {}): HTMLElement {
  return h("div", { class: "table-oval" },
    h("div", { class: "rail", "aria-hidden": "true" }),
    h("div", { class: "middle" }, middle),
    seatList(view, hooks));
}

function playerAt(view: TableView, seat: number): string | undefined {
  return view.seats.find((s) => s.seat === seat)?.playerId;
}

/** What lies in the middle (the pots) and what the seats have bet on this street, apart. */
export function potAmounts(view: TableView): { pot: bigint; bets: bigint } {
  const pot = (view.hand?.pots ?? []).reduce((sum, p) => sum + p.amount, 0n);
  const bets = view.hand?.complete ? 0n : view.seats.reduce((sum, seat) => sum + seat.streetBet, 0n);
  return { pot, bets };
}

/** "Pot $2.50 + bets $18.00", or "Pot $2.50" when nobody has bet on this street (two parts, so a narrow
 * table wraps the line between them). */
export function potText(view: TableView): string[] {
  const currency = view.table?.currencyCode ?? "";
  const { pot, bets } = potAmounts(view);
  return [`Pot ${money(pot, currency)}`, ...(bets > 0n ? [" ", `+ bets ${money(bets, currency)}`] : [])];
}

/** Street, pots, the board's shared card, and the awards once the hand is over. */
export function handSummary(view: TableView): HTMLElement {
  const hand: HandView | undefined = view.hand;
  const currency = view.table?.currencyCode ?? "";
  if (hand === undefined) return h("div", { class: "hand", "data-testid": "hand" }, "No hand dealt yet.");
  // Side pots are listed when there are any; a single pot is the total alone.
  const pots = hand.pots.length > 1 ? hand.pots.map((pot, index) =>
    h("li", { "data-testid": `pot-${index}` }, `${index === 0 ? "Main pot" : `Side pot ${index}`}: ${money(pot.amount, currency)}`))
    : [];
  const street = hand.voided ? `Hand voided: ${hand.voidReason}` : hand.complete ? "Hand over" : streetName(hand.street);
  return h(
    "div",
    { class: "hand", "data-testid": "hand" },
    h("div", { class: "hand-head" },
      h("span", { "data-testid": "hand-number" }, `Hand ${hand.handNumber}`), " · ",
      h("span", { "data-testid": "street" }, street)),
    h("div", { class: "pot-total", "data-testid": "pot-total" }, potText(view).map((part) => part === " " ? part : h("span", {}, part))),
    pots.length > 0 ? h("ul", { class: "pots", "data-testid": "pots" }, pots) : null,
    hand.communityCards.length > 0
      ? h("div", { class: "board" }, "Board: ", hand.communityCards.map((code) => cardFace(code, true)))
      : null,
    hand.complete ? resultList(view) : null,
  );
}

/** Who won what, from the view's awards. */
export function resultList(view: TableView): HTMLElement {
  const currency = view.table?.currencyCode ?? "";
  const awards = view.hand?.awards ?? [];
  return h("ul", { class: "result", "data-testid": "result", "aria-label": `Result of hand ${view.hand?.handNumber}` },
    awards.map((award) => {
      const half = award.potHalf === PotHalf.HIGH ? " (high half)" : award.potHalf === PotHalf.LOW ? " (low half)" : "";
      const pot = award.potIndex === 0 ? "the main pot" : `side pot ${award.potIndex}`;
      const what = award.handDescription ? ` with ${award.handDescription}` : "";
      return h("li", {}, `${seatName(award.seat, playerAt(view, award.seat))} wins ${money(award.amount, currency)} from ${pot}${half}${what}`);
    }));
}
