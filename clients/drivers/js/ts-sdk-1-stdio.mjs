// ts-sdk-1-stdio.mjs: a driver of the official TypeScript SDK's client, 1.x
// (@modelcontextprotocol/sdk), over stdio: the library starts the server
// itself, with the command given (node ts-sdk-1-stdio.mjs {serve} in a
// client audit), at its defaults (a request gives up after 60 s). The
// library does not start a server that exited again: the application does,
// with a new client, as it would after the process died.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { run } from "./app.mjs";

const server = process.argv[2];
if (!server) throw new Error("usage: node ts-sdk-1-stdio.mjs SERVER-COMMAND");
let client, closed = true;
const connect = async () => {
  client = new Client({ name: "notesbench-driver-ts-sdk-1-stdio", version: "1" });
  client.onclose = () => { closed = true; };
  await client.connect(new StdioClientTransport({ command: "sh", args: ["-c", server], stderr: "inherit" }));
  closed = false;
};
await connect();
await run({
  call: async (name, args) => {
    if (closed) await connect();
    return client.callTool({ name, arguments: args });
  },
});
await client.close();
