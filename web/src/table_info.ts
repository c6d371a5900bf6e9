// The table's information panel: the game, its stakes and buy-ins, the rake rule, the clocks and the seats.
import { h } from "./dom";
import { money, secondsText, stakesText } from "./format";
import { gamesText, stakesNow } from "./games";
import type { RakeRule, Table } from "./gen/stud/v1/table_pb";

/** RULES.md section 10: the rate and its caps by players dealt in, or "No rake". */
export function rakeText(rake: RakeRule | undefined, currency: string): string {
  if (rake === undefined || rake.basisPoints === 0) return "No rake";
  const percent = (rake.basisPoints / 100).toLocaleString(undefined, { maximumFractionDigits: 2 });
  const caps = [[rake.cap2Players, "2 players"], [rake.cap3To4Players, "3–4 players"],
    [rake.cap5OrMorePlayers, "5 or more"]] as const;
  return `${percent}% of each pot, at most ${caps.map(([cap, who]) => `${money(cap, currency)} (${who})`).join(", ")};`
    + " no fourth street, no drop";
}

export function tableInfoRows(table: Table): [string, string][] {
  const currency = table.currencyCode;
  const tournament = table.tournament !== undefined;
  const bank = table.timeBank?.reserve;
  return [
    ["Game", `${gamesText(table)}, fixed limit`],
    ["Stakes", stakesText(stakesNow(table), currency)],
    ["Chips", tournament ? "Tournament chips" : table.playMoney || !currency ? "Play money" : currency],
    ...(tournament ? [] : [["Buy-in", `${money(table.minBuyIn, currency)} to ${money(table.maxBuyIn, currency)}`]] as [string, string][]),
    ["Rake", tournament ? "None at the table" : rakeText(table.rake, currency)],
    ["Action clock", secondsText(table.actionClock) || "30 s"],
    ["Time bank", bank && (bank.seconds > 0n || bank.nanos > 0) ? secondsText(bank) : "None"],
    ["Seats", `${table.seatedPlayers} of ${table.maxSeats} taken`
      + (table.waitingPlayers > 0 ? `, ${table.waitingPlayers} waiting` : "")],
  ];
}

/** A disclosure ("Table info") whose panel floats over the page, so opening it moves nothing. */
export function tableInfoPanel(): { element: HTMLElement; show(table: Table): void } {
  const list = h("dl", { class: "info-list", "data-testid": "table-info-list" });
  const element = h("details", { class: "table-info", "data-testid": "table-info" },
    h("summary", {}, "Table info"), h("div", { class: "info-panel" }, list));
  let shown = "";
  return {
    element,
    show(table) {
      const rows = tableInfoRows(table);
      const key = JSON.stringify(rows);
      if (key === shown) return;
      shown = key;
      list.replaceChildren(...rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
    },
  };
}
