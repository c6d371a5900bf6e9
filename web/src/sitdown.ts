// The sit-down and top-up forms: amounts typed in the currency's major unit (dollars) and sent in its
// smallest (cents). The range is the service's to check: its refusal says what is allowed.
import { h } from "./dom";
import { fromMajor, money, toMajor } from "./format";
import type { Table } from "./gen/stud/v1/table_pb";

/** A field for an amount, showing the table's minimum buy-in to start with. */
function amountInput(name: string, testid: string, table: Table, describedBy?: string): HTMLInputElement {
  return h("input", {
    name, id: testid, type: "text", inputmode: "decimal", required: true, autocomplete: "off",
    value: toMajor(table.minBuyIn, table.currencyCode), "data-testid": testid, "aria-describedby": describedBy,
    oninput: (event: Event) => (event.target as HTMLInputElement).setCustomValidity(""),
  });
}

/** The amount typed, in the smallest unit; null, with the field saying what it takes, when it is none. */
function typedAmount(input: HTMLInputElement, table: Table): bigint | null {
  const amount = fromMajor(input.value, table.currencyCode);
  if (amount === null) {
    input.setCustomValidity(`An amount such as ${toMajor(table.minBuyIn, table.currencyCode)}`);
    input.reportValidity();
  }
  return amount;
}

export function sitDownForm(table: Table, open: number[], sit: (seat: number, buyIn: bigint) => void): HTMLElement {
  const currency = table.currencyCode;
  const seat = h("select", { name: "seat", id: "sit-seat", "data-testid": "sit-seat" },
    open.map((number) => h("option", { value: number }, `Seat ${number}`)));
  const buyIn = amountInput("buy-in", "sit-buy-in", table, "sit-range");
  return h("form", {
    class: "sit-down", "data-testid": "sit-down-form", "aria-label": "Sit down",
    onsubmit: (event: Event) => {
      event.preventDefault();
      const amount = typedAmount(buyIn, table);
      if (amount !== null) sit(Number(seat.value), amount);
    },
  },
  h("h2", {}, "Sit down"),
  h("label", { for: "sit-seat" }, "Seat "), seat, " ",
  h("label", { for: "sit-buy-in" }, "Buy-in "), buyIn,
  h("small", { id: "sit-range" }, ` ${money(table.minBuyIn, currency)} to ${money(table.maxBuyIn, currency)} `),
  h("button", { type: "submit", "data-testid": "sit-down" }, "Sit down"));
}

/** Adds chips between hands (TopUp), up to the maximum buy-in; `note` says why it is offered. For a player out of
 * chips the service refuses to deal them in until they top up. */
export function topUpForm(table: Table, topUp: (amount: bigint) => void, note = "Out of chips. "): HTMLElement {
  const amount = amountInput("top-up", "top-up-amount", table);
  return h("form", {
    class: "top-up", "data-testid": "top-up-form", "aria-label": "Top up",
    onsubmit: (event: Event) => {
      event.preventDefault();
      const chips = typedAmount(amount, table);
      if (chips !== null) topUp(chips);
    },
  },
  note ? h("span", {}, note) : null,
  h("label", { for: "top-up-amount" }, "Top up "), amount, " ",
  h("button", { type: "submit", "data-testid": "top-up" }, "Top up"));
}
