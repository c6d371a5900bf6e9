// A refused call as a person reads it: the service's message, and the ErrorInfo reason clients branch on.
import { Code, ConnectError } from "@connectrpc/connect";
import { h } from "./dom";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";

export interface Refusal {
  code: string;
  reason: string;
  message: string;
}

export function refusalOf(error: unknown): Refusal {
  const connect = ConnectError.from(error);
  const info = connect.findDetails(ErrorInfoSchema)[0];
  return {
    code: Code[connect.code] ?? String(connect.code),
    reason: info?.reason ?? "",
    message: connect.rawMessage,
  };
}

/** An alert with the refusal; data-reason carries the ErrorInfo reason (e.g. STALE_TURN). */
export function refusalAlert(error: unknown): HTMLElement {
  const refusal = refusalOf(error);
  return h(
    "div",
    { class: "refusal", role: "alert", "data-testid": "error", "data-reason": refusal.reason, "data-code": refusal.code },
    h("strong", {}, refusal.reason || refusal.code),
    ": ",
    refusal.message,
  );
}

export function isCanceled(error: unknown): boolean {
  return ConnectError.from(error).code === Code.Canceled;
}
