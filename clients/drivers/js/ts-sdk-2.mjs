// ts-sdk-2.mjs: a driver of the official TypeScript SDK's client, 2.x
// (@modelcontextprotocol/client), over streamable HTTP, at its defaults.
// --pin 2026-07-28 pins that protocol (the SDK's documented
// versionNegotiation option) instead of the default handshake.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { run } from "./app.mjs";

const url = new URL(process.env.NOTESBENCH_SERVER_URL);
const pin = process.argv.indexOf("--pin");
const options = pin > 0 ? { versionNegotiation: { mode: { pin: process.argv[pin + 1] } } } : {};
const client = new Client({ name: "notesbench-driver-ts-sdk-2", version: "1" }, options);
await client.connect(new StreamableHTTPClientTransport(url));
await run({ call: (name, args) => client.callTool({ name, arguments: args }) });
await client.close();
