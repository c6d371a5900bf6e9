// The table as the caller may see it (kept current by watch.ts). Seated players act with buttons built from the
// view's legal actions, on the view's turn.
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { requestId, tables } from "./api";
import { fill, h, redraw } from "./dom";
import { refusalAlert, refusalOf } from "./errors";
import { actionName, money, seatName, stakesText, stoppedText, variantName } from "./format";
import type { TableEvent } from "./gen/stud/v1/events_pb";
import { ActionType, ClockKind, type LegalAction, type TableView } from "./gen/stud/v1/table_pb";
import { chatPanel } from "./chat";
import { ServerClock } from "./clock";
import { latencyMeter } from "./latency";
import { narrate } from "./narrate";
import { handSummary, resultList, seatList } from "./seats";
import { principal } from "./session";
import { sitDownForm, topUpForm } from "./sitdown";
import { tournamentPanel } from "./tournament_panel";
import { watchTable } from "./watch";

const LOG_LINES = 40;

function actionLabel(action: LegalAction, currency: string): string {
  const amount = money(action.amount, currency);
  switch (action.type) {
    case ActionType.FOLD: return "Fold";
    case ActionType.CHECK: return "Check";
    case ActionType.CALL: return `Call ${amount}`;
    case ActionType.BRING_IN: return `Bring in ${amount}`;
    case ActionType.COMPLETE: return `Complete to ${amount}`;
    case ActionType.BET: return `Bet ${amount}`;
    case ActionType.RAISE: return `Raise to ${amount}`;
    default: return actionName(action.type);
  }
}

export function showTable(main: HTMLElement, id: string, signal: AbortSignal): void {
  const name = `tables/${id}`;
  const me = principal();
  const title = h("h1", {}, id);
  const facts = h("p", { class: "facts", "data-testid": "table-facts" });
  const connection = h("p", { class: "connection", "data-testid": "connection", role: "status" }, "Connecting…");
  const hand = h("div", {});
  const clock = h("p", { class: "clock", "data-testid": "action-clock", role: "timer", "aria-live": "off" });
  const seats = h("div", {});
  const actions = h("section", { class: "actions", "data-testid": "actions", "aria-label": "Your actions" });
  const seatControls = h("section", { class: "seat-controls", "data-testid": "seat-controls" });
  const sitDown = h("section", { class: "sit-down-slot" });
  const problems = h("div", { class: "problems", "data-testid": "problems" });
  // A tournament's table: the tournament above it (tournament_panel.ts), once the first view says whose it is.
  const tournamentSlot = h("div", {});
  const lastResult = h("section", { class: "last-result", "data-testid": "last-result", "aria-label": "Last hand" });
  const log = h("ol", { class: "log", "data-testid": "event-log" });
  const announcer = h("div", { class: "visually-hidden", "aria-live": "polite", "data-testid": "announcer" });
  const chat = chatPanel(name, signal);
  const meter = latencyMeter();
  fill(main,
    h("p", {}, h("a", { href: "#/" }, "← Tables"), " · ",
      h("a", { href: `#/tables/${encodeURIComponent(id)}/hands`, "data-testid": "open-replayer" }, "Hands played")),
    title, facts, tournamentSlot, h("div", { class: "link-state" }, connection, meter.element), seatControls,
    problems,
    h("div", { class: "felt", "data-testid": "felt" }, hand, clock, seats),
    actions, sitDown, chat.element, lastResult,
    h("details", { class: "log-box" }, h("summary", {}, "Table log"), log),
    announcer);

  let view: TableView | null = null;
  let lastResultView: TableView | null = null;
  let actionsKey = "";
  let sitDownKey = "";
  let controlsKey = "";
  let announced = "";
  let deadline: Date | null = null;

  // The deadline is the server's time (clock.ts), learnt from the events' record times.
  const serverClock = new ServerClock();

  function showClock(): void {
    if (deadline === null) { clock.textContent = ""; delete clock.dataset.clock; return; }
    const seconds = serverClock.secondsUntil(deadline);
    const seat = view?.hand?.toActSeat ?? 0;
    // RULES.md section 7: once the action clock has run out, the player's time bank runs.
    const bank = view?.clock === ClockKind.TIME_BANK;
    clock.dataset.clock = bank ? "TIME_BANK" : "ACTION";
    clock.textContent = `${seat === view?.viewerSeat ? "Your" : `Seat ${seat}'s`} ${bank ? "time bank" : "clock"}: ${seconds} s`;
    clock.classList.toggle("urgent", seconds <= 5);
    clock.classList.toggle("time-bank", bank);
  }
  const tick = setInterval(showClock, 250);
  signal.addEventListener("abort", () => clearInterval(tick), { once: true });

  function showProblem(error: unknown): void {
    fill(problems, refusalAlert(error));
  }

  function render(next: TableView): void {
    // An Act's reply and the watch both carry views: never go back to an older one.
    if (view !== null && next.version < view.version) return;
    view = next;
    meter.show(next.roundTrip);
    chat.view(next);
    const table = next.table;
    const currency = table?.currencyCode ?? "";
    title.textContent = table?.displayName || id;
    const tournament = table?.tournament;
    if (tournament && tournamentSlot.childElementCount === 0) {
      fill(tournamentSlot, tournamentPanel(tournament.tournament, name, serverClock, signal));
    }
    facts.textContent = table === undefined ? "" : `${variantName(table.variant)} · ${stakesText(table.stakes, currency)}`
      + (tournament ? ` (level ${tournament.level}) · tournament chips` : "")
      + ` · ${table.seatedPlayers}/${table.maxSeats} seated`
      + (stoppedText(table) ? ` · ${stoppedText(table)}` : "") + ` · version ${next.version}`;
    fill(hand, handSummary(next));
    redraw(seats, seatList(next, { openSeat: (seat) => openSeatButton(next, seat) }));
    deadline = next.actionDeadline ? timestampDate(next.actionDeadline) : null;
    showClock();
    // The hand's result stays on show below the table while the next hand is played.
    if (next.hand?.complete) {
      fill(lastResult);
      lastResultView = next;
    } else if (lastResultView?.hand && lastResult.childElementCount === 0) {
      fill(lastResult, h("h2", {}, `Last hand (${lastResultView.hand.handNumber})`), resultList(lastResultView));
    }
    renderActions(next);
    renderSeatControls(next);
    renderSitDown(next);
    announceTurn(next);
  }

  function announceTurn(next: TableView): void {
    const toAct = next.hand && !next.hand.complete ? next.hand.toActSeat : 0;
    const key = `${next.hand?.handNumber}:${next.hand?.complete}:${next.turn}:${toAct}`;
    if (key === announced) return;
    announced = key;
    if (next.hand?.complete) {
      const results = [...resultList(next).children].map((item) => item.textContent).join("; ");
      announcer.textContent = `Hand ${next.hand.handNumber} is over: ${results}`;
      return;
    }
    if (toAct === 0) return;
    const player = next.seats.find((seat) => seat.seat === toAct)?.playerId;
    announcer.textContent = toAct === next.viewerSeat
      ? `Your turn: ${next.legalActions.map((a) => actionLabel(a, next.table?.currencyCode ?? "")).join(", ")}`
      : `${seatName(toAct, player).replace(/^s/, "S")} to act`;
  }

  // Rebuilt only when the choice changes, so a focused button keeps its focus while other views arrive.
  function renderActions(next: TableView): void {
    const key = `${next.turn}|${next.legalActions.map((a) => `${a.type}:${a.amount}`).join(",")}`;
    if (key === actionsKey) return;
    actionsKey = key;
    actions.dataset.turn = String(next.turn);
    if (next.legalActions.length === 0) {
      fill(actions, next.viewerSeat === 0 ? null : h("p", { class: "waiting" }, "Not your turn."));
      return;
    }
    const currency = next.table?.currencyCode ?? "";
    const buttons = next.legalActions.map((action) => h("button", {
      type: "button", class: `act act-${actionName(action.type).toLowerCase()}`,
      "data-action": actionName(action.type), "data-amount": String(action.amount),
      onclick: () => void act(next, action),
    }, actionLabel(action, currency)));
    // No button takes the focus by itself (a stray Enter would fold): the live region announces the turn.
    fill(actions, h("h2", {}, "Your turn"), h("div", { class: "buttons" }, buttons));
  }

  async function act(at: TableView, action: LegalAction): Promise<void> {
    for (const button of actions.querySelectorAll("button")) button.disabled = true;
    try {
      const reply = await tables.act({
        name, seat: at.viewerSeat, action: action.type, amount: action.amount, turn: at.turn, requestId: requestId(),
      }, { signal });
      fill(problems);
      if (reply.view) render(reply.view);
    } catch (error) {
      if (signal.aborted) return;
      showProblem(error);
      actionsKey = "";  // the buttons come back with the next view (or now, if the refusal changed nothing)
      if (view) renderActions(view);
    }
  }

  async function call(run: () => Promise<{ view?: TableView }>): Promise<void> {
    try {
      const reply = await run();
      fill(problems);
      if (reply.view) render(reply.view);
    } catch (error) {
      if (!signal.aborted) showProblem(error);
    }
  }

  // Above the felt, away from the action buttons: a click there must never land on Leave, and the action
  // area changing height after a click moves nothing under the pointer up here.
  function renderSeatControls(next: TableView): void {
    const mine = next.seats.find((seat) => seat.seat === next.viewerSeat);
    const busted = mine !== undefined && mine.stack === 0n;
    const key = mine === undefined ? "" : `${mine.seat}:${mine.sittingOut}:${busted}`;
    if (key === controlsKey) return;
    controlsKey = key;
    if (mine === undefined) { fill(seatControls); return; }
    const button = (label: string, testid: string, run: () => Promise<{ view?: TableView }>) =>
      h("button", { type: "button", "data-testid": testid, onclick: () => void call(run) }, label);
    // A tournament seats and moves its players, with its own chips: they neither leave its tables nor top up
    // (RULES.md section 11).
    const tournament = Boolean(next.table?.tournament);
    const leave = () => tables.leave({ name, requestId: requestId() }, { signal });
    fill(seatControls,
      // A busted player cannot sit in (the service says so): the chips come first.
      busted && !tournament && next.table ? topUpForm(next.table,
        (amount) => void call(() => tables.topUp({ name, amount, requestId: requestId() }, { signal })))
        : mine.sittingOut ? button("Sit in", "sit-in", () => tables.sitIn({ name, requestId: requestId() }, { signal }))
          : button("Sit out", "sit-out", () => tables.sitOut({ name, requestId: requestId() }, { signal })),
      " ",
      tournament ? null : h("button", {
        type: "button", class: "leave", "data-testid": "leave",
        onclick: () => { if (playingTheHand()) confirmLeave(leave); else void call(leave); },
      }, "Leave the table"));
  }

  /** Whether the viewer holds cards in the hand being played: leaving then needs a second thought. */
  function playingTheHand(): boolean {
    const mine = view?.seats.find((seat) => seat.seat === view?.viewerSeat);
    return view?.hand !== undefined && !view.hand.complete && mine !== undefined && mine.inHand && !mine.folded;
  }

  function confirmLeave(leave: () => Promise<{ view?: TableView }>): void {
    const stay = () => { controlsKey = ""; if (view) renderSeatControls(view); };
    const confirm = h("div", { class: "leave-confirm", role: "alertdialog", "aria-label": "Leave the table?" },
      h("p", {}, "You are in this hand. Leave the table when it ends? Your chips go back to your account then."),
      h("button", { type: "button", "data-testid": "leave-confirm", onclick: () => void call(leave).then(stay) },
        "Leave after this hand"), " ",
      h("button", { type: "button", "data-testid": "leave-cancel", onclick: stay }, "Stay"));
    fill(seatControls, confirm);
    confirm.querySelector<HTMLButtonElement>("[data-testid=leave-cancel]")?.focus();
  }

  function openSeats(next: TableView): number[] {
    const taken = new Set(next.seats.map((seat) => seat.seat));
    return Array.from({ length: next.table?.maxSeats ?? 0 }, (_, i) => i + 1).filter((seat) => !taken.has(seat));
  }

  function canSit(next: TableView): boolean {
    // A tournament's table takes no one but the players the tournament seats there.
    return me !== null && me.role === "player" && next.viewerSeat === 0 && next.table?.tournament === undefined;
  }

  function openSeatButton(next: TableView, seat: number): Node | null {
    if (!canSit(next)) return null;
    return h("button", {
      type: "button", class: "sit-here", "data-testid": `sit-here-${seat}`,
      onclick: () => {
        const select = sitDown.querySelector<HTMLSelectElement>("select[name=seat]");
        if (select) select.value = String(seat);
        sitDown.querySelector<HTMLInputElement>("input[name=buy-in]")?.focus();
      },
    }, "Sit here");
  }

  function renderSitDown(next: TableView): void {
    const table = next.table;
    const open = openSeats(next);
    const key = canSit(next) && table ? `${open.join(",")}|${table.minBuyIn}|${table.maxBuyIn}` : "";
    if (key === sitDownKey) return;
    sitDownKey = key;
    if (!key || table === undefined) { fill(sitDown); return; }
    if (open.length === 0) {
      fill(sitDown, h("p", {}, "The table is full."));
      return;
    }
    fill(sitDown, sitDownForm(table, open, (seat, buyIn) => void call(
      () => tables.sitDown({ name, seat, buyIn, requestId: requestId() }, { signal }))));
  }

  function record(event: TableEvent): void {
    if (event.recordTime) serverClock.observe(timestampDate(event.recordTime));
    chat.event(event);
    const line = narrate(event, view?.table?.currencyCode ?? "");
    if (!line) return;
    log.prepend(h("li", { "data-version": String(event.version) }, line));
    while (log.children.length > LOG_LINES) log.lastElementChild?.remove();
  }

  // What the lobby shows of the table (GetTable is public), for a visitor who is not logged in.
  async function showPublicSummary(): Promise<void> {
    try {
      const table = await tables.getTable({ name }, { signal });
      title.textContent = table.displayName || id;
      facts.textContent = `${variantName(table.variant)} · ${stakesText(table.stakes, table.currencyCode)}`
        + ` · ${table.seatedPlayers}/${table.maxSeats} seated`;
    } catch {
      // The refusal above already says what is wrong.
    }
  }

  void watchTable(name, signal, {
    view: render,
    event: record,
    roundTrip: meter.show,
    connection(state, retryMs) {
      connection.dataset.state = state;
      connection.textContent = state === "live" ? "Live" : `Reconnecting in ${Math.round(retryMs / 1000)} s…`;
    },
    stopped(error) {
      connection.dataset.state = "stopped";
      connection.textContent = "Not watching";
      showProblem(error);
      if (refusalOf(error).reason === "TOKEN_MISSING") {
        problems.append(h("p", {}, "Watching a table needs a token: log in above (a player who is not seated watches as a spectator)."));
        void showPublicSummary();
      }
    },
  });
}
