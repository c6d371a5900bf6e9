// A Node client of stud-service over the web port, with Connect's packages and the code buf.gen.yaml generates:
// the lobby, a table's view, the first message of its watch, and the ErrorInfo reason of a refusal.
//
//   npx @bufbuild/buf generate -o path/to/client        # from the stud-service repository: path/to/client/gen/...
//   npm install @bufbuild/protobuf@2 @connectrpc/connect@2 @connectrpc/connect-node@2
//   STUD_URL=http://localhost:8080 STUD_TOKEN=$(stud-service token --player alice) npx tsx node_client.ts
//
// docs/clients.md shows it; tests/test_client_guide.py runs it against `stud-service serve`.
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb";
import { TableService } from "./gen/stud/v1/table_service_pb";

const token = process.env.STUD_TOKEN ?? "";
const bearer: Interceptor = (next) => async (request) => {
  request.header.set("authorization", `Bearer ${token}`);
  return next(request);
};
// The web port over HTTP/2: with http:// that is h2c (prior knowledge, no TLS), one connection for every call
// and watch. httpVersion "1.1" works too; https:// negotiates HTTP/2 with TLS.
const transport = createConnectTransport({
  baseUrl: process.env.STUD_URL ?? "http://localhost:8080",
  httpVersion: "2",
  useBinaryFormat: true,
  interceptors: [bearer],
});
const tables = createClient(TableService, transport);

const { tables: lobby } = await tables.listTables({ pageSize: 20 });
for (const table of lobby) {
  console.log(`lobby ${table.name} seated ${table.seatedPlayers}/${table.maxSeats} open ${table.openSeats}`);
}
const name = lobby[0].name;
const view = await tables.getTableView({ name });
console.log(`view ${name} version ${view.version} seats ${view.seats.length}`);

const watch = tables.watchTable({ name, includeViews: true, batchEvents: true },
                                { signal: AbortSignal.timeout(30_000) });
for await (const message of watch) {
  console.log(`watch first message at version ${message.view?.version}`);
  break;  // leaving the loop cancels the stream
}

try {
  await tables.getTableView({ name: "tables/no-such-table" });
} catch (error) {
  const refusal = ConnectError.from(error);
  const reason = refusal.findDetails(ErrorInfoSchema)[0]?.reason;  // switch on it, never on the message
  console.log(`refused ${Code[refusal.code]} ${reason}`);
}
