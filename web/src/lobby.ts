// The lobby: ListTables, which is public (no token needed), and the tournaments (tournament_lobby.ts).
import { tables } from "./api";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import { stakesText, stoppedText, tableId } from "./format";
import { gamesText, nowPlayingText } from "./games";
import type { Table } from "./gen/stud/v1/table_pb";
import { tournamentLobby } from "./tournament_lobby";

// The lobby reads at most this many pages of tables (ListTables gives at most 1000 a page).
const MAX_PAGES = 10;

function row(table: Table): HTMLElement {
  const id = tableId(table);
  return h("tr", { "data-testid": `lobby-table-${id}` },
    h("td", {}, h("a", { href: `#/tables/${encodeURIComponent(id)}`, "data-testid": `open-table-${id}` },
      table.displayName || id)),
    h("td", {}, h("code", {}, id)),
    h("td", { "data-testid": `game-${id}` }, gamesText(table),
      nowPlayingText(table) ? h("div", { class: "now-playing", "data-testid": `current-game-${id}` }, nowPlayingText(table)) : null),
    h("td", {}, stakesText(table.stakes, table.currencyCode), table.playMoney ? " (play money)" : ` ${table.currencyCode}`),
    h("td", { "data-testid": `seated-${id}` }, `${table.seatedPlayers}/${table.maxSeats}`),
    h("td", { "data-testid": `seats-${id}` }, stoppedText(table)
      || (table.waitingPlayers > 0 ? `${table.waitingPlayers} waiting` : `${table.openSeats} open`)));
}

export function showLobby(main: HTMLElement, signal: AbortSignal): void {
  const body = h("tbody", {});
  const status = h("p", { class: "status", role: "status" }, "Loading tables…");
  const refresh = h("button", { type: "button", "data-testid": "lobby-refresh", onclick: () => void load() }, "Refresh");
  fill(main,
    h("h1", {}, "Tables"),
    h("div", { class: "toolbar" }, refresh),
    status,
    h("div", { class: "scroll" },
      h("table", { class: "lobby", "data-testid": "lobby" },
        h("thead", {}, h("tr", {}, ["Table", "Id", "Game", "Stakes", "Seated", "Seats"].map((title) =>
          h("th", { scope: "col" }, title)))),
        body)),
    tournamentLobby(signal));

  async function load(): Promise<void> {
    status.textContent = "Loading tables…";
    try {
      const found: Table[] = [];
      let pageToken = "";
      for (let page = 0; page < MAX_PAGES; page++) {
        const response = await tables.listTables({ pageSize: 100, pageToken }, { signal });
        found.push(...response.tables);
        pageToken = response.nextPageToken;
        if (!pageToken) break;
      }
      fill(body, found.map(row));
      status.textContent = found.length === 0 ? "No tables yet." : `${found.length} table${found.length === 1 ? "" : "s"}.`;
    } catch (error) {
      if (signal.aborted) return;
      fill(status, refusalAlert(error));
    }
  }
  void load();
}
