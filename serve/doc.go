// Package serve exposes any contract.Backend as an MCP server: the seven tools
// of the Notes contract over stdio or streamable HTTP, with the MCP Go SDK.
//
// # The seven tools
//
// tools/list is the contract's own, contract/tools_list.json, object for
// object: serve answers tools/list itself (a receiving middleware), because
// the SDK's Tool type adds idempotentHint: false to every tool and has no
// field for the published securitySchemes. Raw-schema tools are not validated
// by the SDK, so every call goes through the contract's JSON layer,
// contract.Call, which validates the arguments against the schema, refuses
// an operation without the field it needs, and calls the typed tool.
//
// serve declares what it answers, in initialize's result and in
// server/discover's alike: tools, without listChanged (the list never
// changes, and no list_changed is sent); prompts and resources, whose lists
// are answered empty; logging. completion/complete, not declared, is refused
// as a method serve does not have.
//
// Contract outcomes (a version conflict, an unknown Note or tab, an invalid
// argument, a schema violation) are tool results with isError set, carrying the
// same result object contract.Call returns, both as structuredContent and as
// text content. A replayed key is a normal result with "replayed": true. Only
// protocol faults are JSON-RPC errors, each with its code: -32602 (invalid
// params) for an unknown tool and for arguments that are not a JSON object,
// -32603 (internal error) for a failure of the Backend itself (a broken
// database) and for a call that arrives while the server shuts down. No error
// leaves with code 0, and none names what Options.Redact lists (the database's
// folder).
//
// # Sessions and connections
//
// The MCP sessions share one pool of contract sessions (database
// connections), at most Options.MaxConns of them: a call takes an idle one or
// opens another, and gives it back when done, so a client that goes away
// without ending its session holds no connection. The SDK may serve the calls
// of one MCP session concurrently; a contract.Session is not safe for
// concurrent use, so each serves one call at a time. A session whose call
// failed is closed, and a read that failed on a session the pool had kept is
// made again on another (its connection may have been ended by the database).
//
// # Extension tools
//
// An experiment needs what the seven tools do not give: a fresh Note for each
// run, and the person's app actions (contract.Person). serve also has the
// tools of contract/ext, whose names start with "notesbench_", each marked in
// _meta with "notesbench/extension": true and described as not part of the
// Notes contract:
//
//   - notesbench_describe: what serves the contract (the Backend, the variant).
//   - notesbench_create_note: Backend.CreateNote, for a Note ID the client names.
//   - notesbench_move_tab, notesbench_rename_tab, notesbench_add_tab,
//     notesbench_set_cells, notesbench_set_text: the person's actions, listed
//     only when the Backend's sessions implement contract.Person.
//
// The person's actions write with no version check, so an LLM client must not
// be shown them: by default (ExtensionsOnRequest) they are listed and answered
// only to a session whose initialize declares the experimental capability
// ext.Capability, as package mcpclient does; ExtensionsAll lists them to
// every session, ExtensionsNone to none.
//
// # Transports
//
// Over stdio (StdioTransport) serve frames the stream itself, one message a
// line: a line that is no message is answered with a JSON-RPC error and the
// server goes on; a line longer than MaxMessageBytes is refused as it is read;
// at the end of the input the calls read are answered before the connection
// ends. Over streamable HTTP (ServeListener) a guard stands before the SDK's
// handlers: a bearer token beyond loopback (HTTPOptions.Token), the Origin and
// Host checks and the body limit, for both protocols; then a request of MCP
// 2026-07-28 goes to the SDK's stateless handler (a session made for the
// request; at most HTTPOptions.MaxInflight at once), an initialize opens a
// session (at most HTTPOptions.MaxSessions, closed when idle), and any other
// request without a session is 400. Running out of file descriptors is told
// once, and again at most once a minute while it lasts (Options.Warn).
//
// # A person and a history
//
// StartPerson starts a scripted person who edits a Note beside the clients
// on a seeded schedule (Person): each edit is one step on the current Note,
// taken while the clients' calls wait, so the person never overwrites a
// client. Options.History records every call of every MCP session, named by
// its clientInfo, and every edit of the person, in a run of a history (a
// history.Recorder, into a history.Log), which Close ends with the final
// state of every Note a call named: what notesbench check judges the
// clients by.
//
// Process puts one notesbench serve together: the Server over stdio or a
// listener, the person, and the run recorded into the history file the
// command created, started in order and ended in the reverse.
//
// # Shutdown
//
// Serve and ServeListener return when their context is done, after a graceful
// shutdown: calls that arrive from then on are refused, calls in flight finish
// and are answered, the MCP sessions are closed. Close then closes the
// contract sessions and the Backend (for SQLite, a checkpoint).
//
// serve adds transport, and the person beside its clients: it implements no
// rule of the contract and knows no implementation of it, no experiments and
// no editor but the person, whose edits go through the contract like any
// client's.
package serve
