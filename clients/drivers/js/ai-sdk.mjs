// ai-sdk.mjs: a driver of the Vercel AI SDK's MCP client (@ai-sdk/mcp), as
// an agent built on it calls a tool: through the tool set client.tools()
// makes, each call with a tool-call id of its own, at the defaults.
import { createMCPClient } from "@ai-sdk/mcp";
import { randomUUID } from "node:crypto";
import { run } from "./app.mjs";

const client = await createMCPClient({ transport: { type: "http", url: process.env.NOTESBENCH_SERVER_URL } });
const tools = await client.tools();
await run({
  call: (name, args) => tools[name].execute(args, { toolCallId: randomUUID(), messages: [] }),
});
await client.close();
