// The seated player's own controls: sit out or in, top up, leave the table. They stand above the table, away
// from the action buttons: a click there must never land on Leave, and the action area changing height after a
// click moves nothing under the pointer up here. Leaving during a hand the player holds cards in asks first.
import { requestId, tables } from "./api";
import { fill, h } from "./dom";
import type { TableView } from "./gen/stud/v1/table_pb";
import { topUpForm } from "./sitdown";

type Reply = { view?: TableView };

export interface SeatControlHooks {
  /** A call went through: its reply. */
  done(reply: Reply): void;
  /** A call was refused. */
  refused(error: unknown): void;
}

/** Whether the viewer holds cards in the hand being played: leaving then needs a second thought. */
export function playingTheHand(view: TableView | null): boolean {
  const mine = view?.seats.find((seat) => seat.seat === view?.viewerSeat);
  return view?.hand !== undefined && !view.hand.complete && mine !== undefined && mine.inHand && !mine.folded;
}

export function seatControls(name: string, signal: AbortSignal, hooks: SeatControlHooks):
  { element: HTMLElement; show(view: TableView): void } {
  const element = h("section", { class: "seat-controls", "data-testid": "seat-controls", "aria-label": "Your seat" });
  let view: TableView | null = null;
  let key = "";
  let topUpButton: HTMLButtonElement | null = null;

  async function call(run: () => Promise<Reply>): Promise<void> {
    try {
      hooks.done(await run());
    } catch (error) {
      hooks.refused(error);
    }
  }

  const leave = () => tables.leave({ name, requestId: requestId() }, { signal });
  const topUp = (amount: bigint) => call(() => tables.topUp({ name, amount, requestId: requestId() }, { signal }));
  const redraw = () => { key = ""; if (view) show(view); };

  function confirmLeave(): void {
    const confirm = h("div", { class: "leave-confirm", role: "alertdialog", "aria-label": "Leave the table?" },
      h("p", {}, "You are in this hand. Leave the table when it ends? Your chips go back to your account then."),
      h("button", { type: "button", "data-testid": "leave-confirm", onclick: () => void call(leave).then(redraw) },
        "Leave after this hand"), " ",
      h("button", { type: "button", "data-testid": "leave-cancel", onclick: redraw }, "Stay"));
    fill(element, confirm);
    confirm.querySelector<HTMLButtonElement>("[data-testid=leave-cancel]")?.focus();
  }

  /** Top-up between hands: the form floats below its button, so opening it moves nothing. */
  function topUpControl(table: NonNullable<TableView["table"]>): HTMLElement {
    const panel = h("div", { class: "floating", hidden: true });
    topUpButton = h("button", {
      type: "button", "data-testid": "top-up-open", "aria-expanded": "false",
      onclick: () => {
        panel.hidden = !panel.hidden;
        topUpButton?.setAttribute("aria-expanded", String(!panel.hidden));
        if (!panel.hidden) panel.querySelector("input")?.focus();
      },
    }, "Top up");
    fill(panel, topUpForm(table, (amount) => { panel.hidden = true; void topUp(amount); }, ""));
    return h("span", { class: "top-up-control" }, topUpButton, panel);
  }

  function show(next: TableView): void {
    view = next;
    const mine = next.seats.find((seat) => seat.seat === next.viewerSeat);
    const table = next.table;
    // A tournament seats and moves its players, with its own chips: they neither leave its tables nor top up
    // (RULES.md section 11).
    const tournament = Boolean(table?.tournament);
    const busted = mine !== undefined && mine.stack === 0n;
    const nextKey = mine === undefined ? "" : `${mine.seat}:${mine.sittingOut}:${busted}`;
    if (nextKey === key) { enableTopUp(next); return; }
    key = nextKey;
    topUpButton = null;
    if (mine === undefined || table === undefined) { fill(element); return; }
    const button = (label: string, testid: string, run: () => Promise<Reply>) =>
      h("button", { type: "button", "data-testid": testid, onclick: () => void call(run) }, label);
    fill(element,
      // A busted player cannot sit in (the service says so): the chips come first.
      busted && !tournament ? topUpForm(table, (amount) => void topUp(amount))
        : mine.sittingOut ? button("Sit in", "sit-in", () => tables.sitIn({ name, requestId: requestId() }, { signal }))
          : button("Sit out", "sit-out", () => tables.sitOut({ name, requestId: requestId() }, { signal })),
      busted || tournament ? null : topUpControl(table),
      tournament ? null : h("button", {
        type: "button", class: "leave", "data-testid": "leave",
        onclick: () => { if (playingTheHand(view)) confirmLeave(); else void call(leave); },
      }, "Leave the table"));
    enableTopUp(next);
  }

  /** Top-up is between hands only, and below the maximum buy-in (the service says the same). */
  function enableTopUp(next: TableView): void {
    const mine = next.seats.find((seat) => seat.seat === next.viewerSeat);
    if (topUpButton && mine && next.table) {
      // Dealt into the running hand, folded or not, the player tops up after it.
      const dealtIn = next.hand !== undefined && !next.hand.complete && mine.inHand;
      topUpButton.disabled = dealtIn || mine.stack >= next.table.maxBuyIn;
    }
  }

  return { element, show };
}
