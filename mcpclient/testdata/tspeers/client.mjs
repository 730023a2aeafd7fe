// client.mjs: a client of the TypeScript MCP SDK 2.x against a server of the
// Notes contract, for notesbench's tests. It lists the tools, reads the
// text of a Note, writes it with the version read, sends a write with that
// version again under another key (stale), and sends the first write again
// under its key (a resend); it prints one JSON object of what it saw.
//
// Usage: node client.mjs URL 2026-07-28|auto|default NOTE KEY
//   2026-07-28: the stateless protocol, pinned
//   auto: the SDK's negotiation (versionNegotiation mode "auto"): a
//     server/discover first, and the 2025-11-25 handshake when it finds no
//     2026-07-28 server there
//   default: the SDK's default (mode "legacy"), the 2025-11-25 handshake
//     with no server/discover before it
// The SDK is imported from the node_modules beside this file.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, mode, noteID, key] = process.argv.slice(2);
const options = {
  default: {},
  auto: { versionNegotiation: { mode: "auto" } },
}[mode] ?? { versionNegotiation: { mode: { pin: mode } } };
const client = new Client({ name: "notesbench-ts-peer", version: "1.0.0" }, options);
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

const result = (r) => r.structuredContent ?? JSON.parse(r.content[0].text);
const call = async (name, args) => {
  const r = await client.callTool({ name, arguments: args });
  return { isError: !!r.isError, ...result(r) };
};
const edit = (version, k, text) =>
  call("edit_note_tab", { note_id: noteID, tab_id: "markdown", expected_version: version, idempotency_key: k, operation: "replace_text", text });

const listed = await client.listTools();
const read = await call("read_note_tab", { note_id: noteID, tab_id: "markdown" });
const text = `${read.data}\nts peer ${key}`;
const written = await edit(read.version, key, text);
const stale = await edit(read.version, `${key}-stale`, `${read.data}\nstale`);
const resent = await edit(read.version, key, text);
const after = await call("read_note_tab", { note_id: noteID, tab_id: "markdown" });
console.log(JSON.stringify({
  protocol: client.getNegotiatedProtocolVersion(),
  tools: listed.tools.map((t) => t.name),
  read, written, stale, resent, after,
}));
await client.close();
