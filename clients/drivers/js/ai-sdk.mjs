// ai-sdk.mjs: a driver of the Vercel AI SDK's MCP client (@ai-sdk/mcp), as
// an agent built on it calls a tool: through the tool set client.tools()
// makes, each call with a tool-call id of its own, at the defaults.
// --max-retries N sets the client's documented maxRetries (0 by default):
// how many times it sends a tools/call again after a transient failure (a
// status of 500 or more, 408, 409 or 429, a connection reset).
import { createMCPClient } from "@ai-sdk/mcp";
import { randomUUID } from "node:crypto";
import { run } from "./app.mjs";

const i = process.argv.indexOf("--max-retries");
const maxRetries = i > 0 ? Number(process.argv[i + 1]) : undefined;
const client = await createMCPClient({ transport: { type: "http", url: process.env.NOTESBENCH_SERVER_URL }, maxRetries });
const tools = await client.tools();
await run({
  call: (name, args) => tools[name].execute(args, { toolCallId: randomUUID(), messages: [] }),
});
await client.close();
