// Package serve exposes any contract.Backend as an MCP server: the seven tools
// of the Notes contract over stdio or streamable HTTP, with the MCP Go SDK.
//
// # The seven tools
//
// tools/list is the contract's own (contract.Tools): names, descriptions, raw
// input schemas and annotations. The one field the SDK's Tool type lacks,
// securitySchemes, is served under _meta ("securitySchemes"), not dropped.
// Raw-schema tools are not validated by the SDK, so every call goes through the
// contract's JSON layer, contract.Call, which validates the arguments against
// the schema and calls the typed tool.
//
// Contract outcomes (a version conflict, an unknown Note or tab, an invalid
// argument, a schema violation) are tool results with isError set, carrying the
// same result object contract.Call returns, both as structuredContent and as
// text content. A replayed key is a normal result with "replayed": true. Only
// protocol faults are JSON-RPC errors, each with its code: -32602 (invalid
// params) for an unknown tool and for arguments that are not a JSON object,
// -32603 (internal error) for a failure of the Backend itself (a broken
// database) and for a call that arrives while the server shuts down. No error
// leaves with code 0.
//
// # Sessions and concurrency
//
// Each MCP session gets contract sessions of its own, never shared with another
// MCP session, so two clients are two connections to the database as two
// processes would be. The SDK may serve the calls of one MCP session
// concurrently; a contract.Session is not safe for concurrent use, so each MCP
// session keeps a small pool: a call takes an idle contract session or opens a
// new one, and gives it back when done. Sequential calls (the usual client)
// reuse one contract session and its prepared statements; concurrent calls get
// one each and are not serialized. The pool is closed when its MCP session ends.
// BenchmarkSessionStrategy measures this pool against serializing the calls of a
// session on one contract session and against opening one per call.
//
// # Extension tools
//
// An experiment needs what the seven tools do not give: a fresh Note for each
// run, and the person's app actions (contract.Person). With Options.Extensions
// the server also lists tools whose names start with "notesbench_", each marked
// in _meta with "notesbench/extension": true and described as not part of the
// Notes contract:
//
//   - notesbench_describe: what serves the contract (the Backend, the variant).
//   - notesbench_create_note: Backend.CreateNote, for a Note ID the client names.
//   - notesbench_move_tab, notesbench_rename_tab, notesbench_add_tab,
//     notesbench_set_cells, notesbench_set_text: the person's actions, listed
//     only when the Backend's sessions implement contract.Person.
//
// A client (package mcpclient) uses them when the server offers them. A server
// that lacks them can still be raced and checked on a Note the user names;
// experiments that need the person's actions refuse it, naming the target and
// the missing tool.
//
// # Shutdown
//
// Serve and ServeListener return when their context is done, after a graceful
// shutdown: calls that arrive from then on are refused, calls in flight finish
// and are answered, the MCP sessions and their contract sessions are closed.
// Close then closes the Backend (for SQLite, a checkpoint).
//
// serve adds transport, nothing else: it implements no rule of the contract and
// knows no implementation of it, no editors and no experiments.
package serve
