// The table chat (docs/chat.md): the messages said at the table, as the watch brings them, and a line to write
// one. A message an operator deletes goes from the screen; a refusal (a card named during a hand, too many
// messages, a mute) is shown with its reason, as every refusal is.
import { requestId, tables } from "./api";
import { fill, h } from "./dom";
import { refusalAlert } from "./errors";
import type { TableEvent } from "./gen/stud/v1/events_pb";
import type { TableView } from "./gen/stud/v1/table_pb";
import { principal } from "./session";

const CHAT_LINES = 50;
const MAX_CHARS = 200;

export interface ChatPanel {
  element: HTMLElement;
  event(event: TableEvent): void;
  view(view: TableView): void;
}

export function chatPanel(name: string, signal: AbortSignal): ChatPanel {
  const me = principal();
  const lines = h("ol", { class: "chat-log", "data-testid": "chat-log", "aria-live": "polite", "aria-label": "Chat" });
  const problem = h("div", { "data-testid": "chat-problem" });
  const input = h("input", {
    type: "text", name: "chat", maxlength: MAX_CHARS, autocomplete: "off", "aria-label": "Message",
    "data-testid": "chat-input", placeholder: "Say something to the table",
  });
  const send = h("button", { type: "submit", "data-testid": "chat-send" }, "Send");
  const status = h("p", { class: "chat-status", "data-testid": "chat-status" });
  const form = h("form", {
    class: "chat-form",
    onsubmit: (event: Event) => { event.preventDefault(); void say(); },
  }, input, " ", send);
  const element = h("section", { class: "chat", "data-testid": "chat", "aria-label": "Table chat" },
    h("h2", {}, "Chat"), lines, me !== null && me.role !== "auditor" ? form : null, status, problem);

  async function say(): Promise<void> {
    const text = input.value;
    if (!text.trim()) return;
    send.disabled = true;
    try {
      await tables.sendChat({ name, text, requestId: requestId() }, { signal });
      input.value = "";
      fill(problem);
    } catch (error) {
      if (!signal.aborted) fill(problem, refusalAlert(error));
    } finally {
      send.disabled = false;
    }
  }

  function event(event: TableEvent): void {
    const e = event.event;
    if (e.case === "chatMessageSent") {
      const line = h("li", { "data-number": String(e.value.number), "data-player": e.value.playerId },
        h("strong", {}, e.value.playerId), e.value.seat ? ` (seat ${e.value.seat})` : " (watching)", ": ",
        e.value.deleted ? h("em", {}, "message deleted") : e.value.text);
      lines.append(line);
      while (lines.children.length > CHAT_LINES) lines.firstElementChild?.remove();
    } else if (e.case === "chatMessageDeleted") {
      const line = lines.querySelector(`li[data-number="${e.value.number}"]`);
      if (line) fill(line, h("em", {}, "message deleted by an operator"));
    } else if (e.case === "chatMuteSet") {
      const verb = e.value.muted ? "muted" : "may write again";
      lines.append(h("li", { class: "chat-note" }, h("em", {}, `${e.value.playerId} ${verb}: ${e.value.reason}`)));
    }
  }

  function view(next: TableView): void {
    const writes = next.viewerSeat !== 0 || next.table?.chat?.spectatorsWrite === true;
    const muted = next.chatMuted;
    input.disabled = send.disabled = muted || !writes;
    status.textContent = muted ? "An operator muted you in this chat."
      : writes ? "" : "Only the players seated here may write.";
  }

  return { element, event, view };
}
