// run.mjs: runs the scenarios of idempotency.mjs against the MCP server at
// URL (streamable HTTP), through the official TypeScript SDK's client, and
// prints one line per check; exit 1 on a FAILURE.
//
// Usage: node run.mjs URL [CONTEXT.json]
// The context names the fixtures: {"write": {"tool", "arguments"}, "read":
// {"tool", "arguments", "text", "version"}}, where the write's arguments hold
// {key}, {version} and {text}, and text and version are paths into the read
// result's object. Without one, the Notes contract's tools on note-1 (what
// notesbench serve serves). The SDK is imported from the node_modules beside
// this file.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { scenarios } from "./idempotency.mjs";

const [url, contextFile] = process.argv.slice(2);
if (!url) {
  console.error("usage: node run.mjs URL [CONTEXT.json]");
  process.exit(2);
}
const fixtures = contextFile ? JSON.parse(readFileSync(contextFile, "utf8")) : {
  write: { tool: "edit_note_tab", arguments: { note_id: "note-1", tab_id: "markdown", expected_version: "{version}", idempotency_key: "{key}", operation: "replace_text", text: "{text}" } },
  read: { tool: "read_note_tab", arguments: { note_id: "note-1", tab_id: "markdown" }, text: "data", version: "version" },
};
const ctx = {
  serverUrl: url,
  fixtures,
  async connect() {
    const client = new Client({ name: "notesbench-idempotency-scenarios", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    return {
      callTool: (name, args) => client.callTool({ name, arguments: args }),
      close: () => client.close(),
    };
  },
};
let failed = false;
for (const s of scenarios) {
  for (const c of await s.run(ctx)) {
    console.log(`${s.name}: ${c.id}: ${c.status}${c.errorMessage ? `: ${c.errorMessage}` : ""}`);
    failed ||= c.status === "FAILURE";
  }
}
process.exit(failed ? 1 : 0);
