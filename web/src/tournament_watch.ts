// A tournament followed as it is played: WatchTournament with the caller's view at every event, opened again
// after the last version received when the stream drops (keepWatching); and the way to a player's table.
import { tables, tournaments } from "./api";
import { refusalOf } from "./errors";
import type { TournamentEvent, TournamentView } from "./gen/stud/v1/tournament_pb";
import { tableId } from "./format";
import { type Connection, keepWatching, sleep } from "./watch";

// Through proxies that close an idle stream; a tournament between levels can be quiet for minutes.
const HEARTBEAT_SECONDS = 15;
// How long the page waits for a table the tournament has just seated the player at to be opened.
const TABLE_WAIT_MS = 60_000;

export interface TournamentWatcher extends Connection {
  view(view: TournamentView): void;
  event(event: TournamentEvent): void;
}

export async function watchTournament(name: string, signal: AbortSignal, watcher: TournamentWatcher): Promise<void> {
  let version = 0n;
  await keepWatching(signal, watcher, async (live, restart) => {
    if (restart) version = 0n;  // from the caller's view again
    const stream = tournaments.watchTournament(
      { name, afterVersion: version, includeViews: true, heartbeatSeconds: HEARTBEAT_SECONDS }, { signal });
    watcher.connection("live", 0);
    for await (const message of stream) {
      live();
      if (message.heartbeat !== undefined) continue;
      if (message.event) {
        version = message.event.version;
        watcher.event(message.event);
      } else if (message.view) {
        version = message.view.version;
      }
      if (message.view) watcher.view(message.view);
    }
  });
}

/**
 * Takes the page to `table` (`tables/{id}`): the player's seat in a tournament. The tournament seats a player
 * before its owner has opened the table, so the page waits (a while) until the table exists.
 */
export async function goToTable(table: string, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + TABLE_WAIT_MS;
  while (!signal.aborted) {
    try {
      await tables.getTable({ name: table }, { signal });
      break;
    } catch (error) {
      if (signal.aborted || refusalOf(error).reason !== "NO_TABLE" || Date.now() > deadline) break;
      await sleep(250, signal);
    }
  }
  if (!signal.aborted) location.hash = `#/tables/${encodeURIComponent(tableId(table))}`;
}
