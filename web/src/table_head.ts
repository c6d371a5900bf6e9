// The table's heading: its name, and a line saying the game, the stakes and the seats. What a player reads
// about the game goes in `gameFacts` (one place to add to as the games offered grow).
import { h } from "./dom";
import { stakesText, stoppedText } from "./format";
import { gamesText, stakesNow } from "./games";
import type { Table } from "./gen/stud/v1/table_pb";

/** The facts line's parts: the game's name first (data-testid game-name), then stakes and seats. */
export function gameFacts(table: Table): (HTMLElement | string)[] {
  const currency = table.currencyCode;
  const tournament = table.tournament;
  const stopped = stoppedText(table);
  return [
    h("span", { class: "game-name", "data-testid": "game-name" }, gamesText(table)),
    ` · ${stakesText(stakesNow(table), currency)}`,
    tournament ? ` (level ${tournament.level}) · tournament chips` : "",
    ` · ${table.seatedPlayers}/${table.maxSeats} seated`,
    stopped ? ` · ${stopped}` : "",
  ];
}
