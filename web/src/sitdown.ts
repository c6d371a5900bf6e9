// The sit-down form: a seat and a buy-in, typed in the currency's major unit (dollars) and sent in its
// smallest (cents). The range is the service's to check: its refusal says what is allowed.
import { h } from "./dom";
import { fromMajor, money, toMajor } from "./format";
import type { Table } from "./gen/stud/v1/table_pb";

export function sitDownForm(table: Table, open: number[], sit: (seat: number, buyIn: bigint) => void): HTMLElement {
  const currency = table.currencyCode;
  const seat = h("select", { name: "seat", id: "sit-seat", "data-testid": "sit-seat" },
    open.map((number) => h("option", { value: number }, `Seat ${number}`)));
  const buyIn = h("input", {
    name: "buy-in", id: "sit-buy-in", type: "text", inputmode: "decimal", required: true, autocomplete: "off",
    value: toMajor(table.minBuyIn, currency), "data-testid": "sit-buy-in", "aria-describedby": "sit-range",
    oninput: (event: Event) => (event.target as HTMLInputElement).setCustomValidity(""),
  });
  return h("form", {
    class: "sit-down", "data-testid": "sit-down-form", "aria-label": "Sit down",
    onsubmit: (event: Event) => {
      event.preventDefault();
      const amount = fromMajor(buyIn.value, currency);
      if (amount === null) {
        buyIn.setCustomValidity(`An amount such as ${toMajor(table.minBuyIn, currency)}`);
        buyIn.reportValidity();
        return;
      }
      sit(Number(seat.value), amount);
    },
  },
  h("h2", {}, "Sit down"),
  h("label", { for: "sit-seat" }, "Seat "), seat, " ",
  h("label", { for: "sit-buy-in" }, "Buy-in "), buyIn,
  h("small", { id: "sit-range" }, ` ${money(table.minBuyIn, currency)} to ${money(table.maxBuyIn, currency)} `),
  h("button", { type: "submit", "data-testid": "sit-down" }, "Sit down"));
}
