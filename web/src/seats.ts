// Draws a TableView: the seats, their cards and stacks, the pot and the hand's result. Only what the view
// holds is drawn: a card the viewer may not see is a back without data-card, since the page never had it.
import { cardBack, cardFace } from "./cards";
import { h } from "./dom";
import { money, seatName, secondsText, streetName } from "./format";
import type { HandView, SeatView, TableView } from "./gen/stud/v1/table_pb";
import { PotHalf, SitOutReason } from "./gen/stud/v1/table_pb";

export interface SeatHooks {
  /** Content for an open seat (a "Sit here" button), or nothing. */
  openSeat?: (seat: number) => Node | null;
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

function seatCards(seat: SeatView): HTMLElement {
  // Down cards first (the two hole cards), then the up cards in the order dealt, as at a real table.
  return h(
    "div",
    { class: "cards", "data-testid": `seat-${seat.seat}-cards` },
    // Shown at showdown: down_cards then holds every card, and everyone sees them.
    seat.downCards.map((code) => cardFace(code, seat.shown)),
    Array.from({ length: seat.hiddenDownCards }, () => cardBack()),
    seat.upCards.map((code) => cardFace(code, true)),
  );
}

function seatBox(view: TableView, number: number, seat: SeatView | undefined, hooks: SeatHooks): HTMLElement {
  const currency = view.table?.currencyCode ?? "";
  const toAct = view.hand !== undefined && !view.hand.complete && view.hand.toActSeat === number;
  const classes = ["seat", seat === undefined ? "open" : "", toAct ? "to-act" : "",
    number === view.viewerSeat ? "mine" : "", seat?.folded ? "folded" : ""].filter(Boolean).join(" ");
  if (seat === undefined) {
    return h("li", { class: classes, "data-testid": `seat-${number}`, "data-seat": number },
      h("div", { class: "seat-head" }, h("span", { class: "seat-number" }, `Seat ${number}`), " open"),
      hooks.openSeat?.(number) ?? null);
  }
  return h(
    "li",
    {
      class: classes,
      "data-testid": `seat-${number}`,
      "data-seat": number,
      "data-player": seat.playerId,
      "aria-current": toAct ? "true" : undefined,
    },
    h("div", { class: "seat-head" },
      h("span", { class: "seat-number" }, `Seat ${number}`), " ",
      h("span", { class: "player", "data-testid": `seat-${number}-player` }, seat.playerId),
      number === view.viewerSeat ? h("span", { class: "badge" }, "you") : null,
      toAct ? h("span", { class: "badge turn" }, "to act") : null),
    h("div", { class: "seat-money" },
      h("span", { "data-testid": `seat-${number}-stack` }, `Stack ${money(seat.stack, currency)}`),
      seat.streetBet > 0n ? h("span", { class: "bet" }, ` · bet ${money(seat.streetBet, currency)}`) : null),
    h("div", { class: "seat-status" }, seatStatus(seat)),
    // RULES.md section 7: the seat's time bank reserve, at a table that has one.
    seat.timeBank ? h("div", { class: "seat-time-bank", "data-testid": `seat-${number}-time-bank` },
      `Time bank ${secondsText(seat.timeBank)}`) : null,
    seatCards(seat),
  );
}

/** The seats, 1..max_seats, open ones included. */
export function seatList(view: TableView, hooks: SeatHooks = {}): HTMLElement {
  const bySeat = new Map(view.seats.map((seat) => [seat.seat, seat]));
  const count = view.table?.maxSeats ?? Math.max(0, ...bySeat.keys());
  return h("ol", { class: "seats", "data-testid": "seats", "aria-label": "Seats" },
    Array.from({ length: count }, (_, index) => seatBox(view, index + 1, bySeat.get(index + 1), hooks)));
}

function playerAt(view: TableView, seat: number): string | undefined {
  return view.seats.find((s) => s.seat === seat)?.playerId;
}

/** Street, pots, the board's shared card, and the awards once the hand is over. */
export function handSummary(view: TableView): HTMLElement {
  const hand: HandView | undefined = view.hand;
  const currency = view.table?.currencyCode ?? "";
  if (hand === undefined) return h("div", { class: "hand", "data-testid": "hand" }, "No hand dealt yet.");
  const pots = hand.pots.map((pot, index) =>
    h("li", { "data-testid": `pot-${index}` }, `${index === 0 ? "Main pot" : `Side pot ${index}`}: ${money(pot.amount, currency)}`));
  const street = hand.voided ? `Hand voided: ${hand.voidReason}` : hand.complete ? "Hand over" : streetName(hand.street);
  return h(
    "div",
    { class: "hand", "data-testid": "hand" },
    h("div", { class: "hand-head" },
      h("span", { "data-testid": "hand-number" }, `Hand ${hand.handNumber}`), " · ",
      h("span", { "data-testid": "street" }, street)),
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
