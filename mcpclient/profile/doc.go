// Package profile is the profile format: a declarative, versioned file that
// maps the operations notesbench's experiments use onto an MCP server's own
// tools — how a run gets a fresh document (setup), how it is read (content
// and version), how it is written (the whole content, a patch or an append,
// with or without a version and a key), how a refusal for a stale version is
// recognized (conflict), and, where the server has them, how items are
// created with a key and listed (create, list, add_source, list_sources).
//
// A profile is strict: it must be valid against the format's JSON Schema
// (Schema; a member the format does not name is refused), and each template
// may name only the variables of its call. Parse and Load return an *Error
// naming the profile field at fault. An extraction that finds nothing in a
// real reply is an *ExtractError naming the field and the reply, cut short.
//
// The built-in profiles (Builtins) are embedded: the Notes contract itself
// (notes), @modelcontextprotocol/server-filesystem (filesystem, and
// filesystem-edit with its patch tool), @modelcontextprotocol/server-memory
// (memory) and an example in the shape of GitHub's file tools (github).
//
// profile knows the format and nothing of MCP sessions: package mcpclient
// runs a profile against a server. It imports contract and nothing else of
// the project.
package profile
