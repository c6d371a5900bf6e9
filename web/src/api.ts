// The service's published API over the Connect protocol, on the origin that served the page.
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { AuditService } from "./gen/stud/v1/audit_service_pb";
import { TableService } from "./gen/stud/v1/table_service_pb";
import { TournamentService } from "./gen/stud/v1/tournament_service_pb";
import { deviceId, token } from "./session";

// Every call carries the token, and the browser's device id (x-stud-device-id: the player's sessions record it,
// and a table that keeps one household apart compares it).
const bearer: Interceptor = (next) => async (request) => {
  const jwt = token();
  if (jwt !== null) request.header.set("authorization", `Bearer ${jwt}`);
  request.header.set("x-stud-device-id", deviceId());
  return next(request);
};

// Binary, not JSON: a message from a newer server with fields this page does not know still parses.
const transport = createConnectTransport({
  baseUrl: location.origin,
  useBinaryFormat: true,
  interceptors: [bearer],
});

export const tables: Client<typeof TableService> = createClient(TableService, transport);
export const audit: Client<typeof AuditService> = createClient(AuditService, transport);
export const tournaments: Client<typeof TournamentService> = createClient(TournamentService, transport);

/** An idempotency key (request_id). crypto.randomUUID needs a secure context; getRandomValues does not. */
export function requestId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
