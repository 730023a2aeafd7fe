// mcp-remote.mjs: a driver of mcp-remote, the stdio-to-HTTP bridge desktop
// applications run to reach a remote server: the TypeScript SDK 1.x client
// spawns it over stdio, at its defaults, and it speaks streamable HTTP to
// the server.
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { run } from "./app.mjs";

const require = createRequire(import.meta.url);
const bin = path.join(path.dirname(require.resolve("mcp-remote/package.json")), "dist", "proxy.js");
const client = new Client({ name: "notesbench-driver-mcp-remote", version: "1" });
await client.connect(new StdioClientTransport({
  command: process.execPath,
  args: [bin, process.env.NOTESBENCH_SERVER_URL],
  stderr: "inherit",
}));
await run({ call: (name, args) => client.callTool({ name, arguments: args }) });
await client.close();
