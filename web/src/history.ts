// A finished hand's history, downloaded from the page: PokerStars-style text or PHH, as the service exports it
// (AuditService.ExportHandHistory, redacted to what the caller may see).
import { audit } from "./api";
import { h } from "./dom";
import { refusalAlert } from "./errors";
import { HistoryFormat } from "./gen/stud/v1/audit_service_pb";

const FORMATS = [
  { format: HistoryFormat.POKERSTARS, label: "PokerStars text", suffix: "txt", testid: "download-pokerstars" },
  { format: HistoryFormat.PHH, label: "PHH", suffix: "phh", testid: "download-phh" },
];

/** Saves `text` as a file called `filename`, as a download. */
function save(text: string, filename: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const link = h("a", { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Buttons that download hand `hand` of table `id`; a refusal shows in `problems`. */
export function historyDownloads(id: string, hand: bigint, problems: HTMLElement, signal: AbortSignal): HTMLElement {
  const name = `tables/${id}/hands/${hand}`;
  return h("p", { class: "downloads", "data-testid": "downloads" }, "Hand history: ",
    FORMATS.map(({ format, label, suffix, testid }) => h("button", {
      type: "button", class: "link-button", "data-testid": testid,
      onclick: async () => {
        try {
          const reply = await audit.exportHandHistory({ name, format }, { signal });
          save(reply.text, `${id}-hand-${hand}.${suffix}`);
        } catch (error) {
          if (!signal.aborted) problems.replaceChildren(refusalAlert(error));
        }
      },
    }, label)));
}
