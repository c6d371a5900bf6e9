// A table's view, kept current: GetTableView, then WatchTable(include_views) after that view's version. When
// the stream drops (a restart, a proxy's timeout, the network) it is opened again after the last version
// received, so no event is missed or seen twice. Each heartbeat is answered at once (AnswerHeartbeat): the
// server then knows the round trip to this page, the latency meter.
import { Code } from "@connectrpc/connect";
import { tables } from "./api";
import { isCanceled, refusalOf } from "./errors";
import type { TableEvent } from "./gen/stud/v1/events_pb";
import type { RoundTrip, TableView } from "./gen/stud/v1/table_pb";

const RETRY_FIRST_MS = 500;
// A quiet table sends a heartbeat this often: the latency meter's pace while nothing else happens.
const HEARTBEAT_SECONDS = 5;
const RETRY_MAX_MS = 10_000;
// Refusals that trying again will not change: the watch ends and says why.
const FINAL = new Set([Code.NotFound, Code.PermissionDenied, Code.Unauthenticated, Code.InvalidArgument]);

export interface Watcher extends Connection {
  view(view: TableView): void;
  event(event: TableEvent): void;
  /** The server's latest measure of the round trip to this page. */
  roundTrip(roundTrip: RoundTrip | undefined): void;
}

async function answer(name: string, ping: string, signal: AbortSignal, watcher: Watcher): Promise<void> {
  try {
    const reply = await tables.answerHeartbeat({ name, ping }, { signal });
    watcher.roundTrip(reply.roundTrip);
  } catch {
    // Not this replica's ping (several replicas), or the page is leaving: the next heartbeat will do.
  }
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}

/** What a watch with reconnection tells its page about the stream's state. */
export interface Connection {
  /** Live, or waiting `retryMs` before the next attempt. */
  connection(state: "live" | "reconnecting", retryMs: number): void;
  /** The watch ended for good with this refusal. */
  stopped(error: unknown): void;
}

/**
 * Runs `attempt` (one stream, from where the page stands) again after each drop, backing off, until the page
 * leaves or a refusal that trying again will not change. `attempt` calls `live` on each message it gets; it is
 * told `restart` after VERSION_OUT_OF_RANGE (the stream is not where the page thought: start from a view).
 */
export async function keepWatching(
  signal: AbortSignal,
  connection: Connection,
  attempt: (live: () => void, restart: boolean) => Promise<void>,
): Promise<void> {
  let delay = RETRY_FIRST_MS;
  let restart = false;
  const live = (): void => { delay = RETRY_FIRST_MS; };
  while (!signal.aborted) {
    try {
      const from = restart;
      restart = false;
      await attempt(live, from);
    } catch (error) {
      if (signal.aborted || isCanceled(error)) return;
      const refusal = refusalOf(error);
      if (refusal.reason === "VERSION_OUT_OF_RANGE") {
        restart = true;
      } else if (FINAL.has(Code[refusal.code as keyof typeof Code])) {
        connection.stopped(error);
        return;
      }
    }
    if (signal.aborted) return;
    connection.connection("reconnecting", delay);
    await sleep(delay, signal);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  }
}

export async function watchTable(name: string, signal: AbortSignal, watcher: Watcher): Promise<void> {
  let version: bigint | null = null;
  const record = (event: TableEvent): void => {
    if (version === null || event.version > version) version = event.version;
    watcher.event(event);
  };
  await keepWatching(signal, watcher, async (live, restart) => {
    if (restart) version = null;  // the table is not where this page thought: start again from its view
    if (version === null) {
      const view = await tables.getTableView({ name }, { signal });
      watcher.view(view);
      version = view.version;
    }
    const stream = tables.watchTable(
      { name, afterVersion: version, includeViews: true, heartbeatSeconds: HEARTBEAT_SECONDS }, { signal });
    watcher.connection("live", 0);
    for await (const message of stream) {
      live();
      // A heartbeat keeps an idle stream open through proxies and asks for an answer (the latency meter); it
      // (and a message of a kind this page does not know) carries no event and no view.
      if (message.heartbeat !== undefined) {
        watcher.roundTrip(message.heartbeat.roundTrip);
        if (message.heartbeat.ping) void answer(name, message.heartbeat.ping, signal, watcher);
        continue;
      }
      if (message.event) record(message.event);
      message.events.forEach(record);
      if (message.view) watcher.view(message.view);
    }
  });
}
