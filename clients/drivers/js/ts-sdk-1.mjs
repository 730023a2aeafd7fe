// ts-sdk-1.mjs: a driver of the official TypeScript SDK's client, 1.x
// (@modelcontextprotocol/sdk), over streamable HTTP, at its defaults (a
// request gives up after 60 s).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { run } from "./app.mjs";

const url = new URL(process.env.NOTESBENCH_SERVER_URL);
const client = new Client({ name: "notesbench-driver-ts-sdk-1", version: "1" });
await client.connect(new StreamableHTTPClientTransport(url));
await run({ call: (name, args) => client.callTool({ name, arguments: args }) });
await client.close();
