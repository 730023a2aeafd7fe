package backend

import (
	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/internal/field"
	"github.com/notesbench/notesbench/mcpclient"
	"github.com/notesbench/notesbench/pgstore"
)

// checkWire checks the settings of how a server is reached: a protocol
// version notesbench speaks, a session mode and a balance policy it knows,
// each only with a server target, the balance only with several URLs, and a
// schema only for a PostgreSQL store.
func (s Spec) checkWire() error {
	set := map[string]bool{"protocol": s.Protocol != "", "sessions": s.Sessions != "", "balance": s.Balance != ""}
	for _, name := range []string{"protocol", "sessions", "balance"} {
		if set[name] && !s.Remote() {
			return field.Errorf(name, "says how a server is reached: give --target too")
		}
	}
	if err := mcpclient.CheckProtocol(s.Protocol); err != nil {
		return field.Wrap("protocol", err)
	}
	if s.Sessions != "" {
		if _, err := contract.SessionModes.Parse(string(s.Sessions)); err != nil {
			return field.Wrap("sessions", err)
		}
	}
	if s.Balance != "" {
		if _, err := contract.Balances.Parse(string(s.Balance)); err != nil {
			return field.Wrap("balance", err)
		}
		if spec, err := mcpclient.Parse(s.Target); err == nil && len(spec.URLs) < 2 {
			return field.Errorf("balance", "chooses among replicas: give --target several HTTP URLs, comma-separated")
		}
	}
	if s.Token != "" {
		if spec, err := mcpclient.Parse(s.Target); err != nil || spec.Stdio() {
			return field.Errorf("token_file", "names the bearer token of an HTTP server: give --target http://…")
		}
	}
	if s.Schema != "" {
		if !s.Postgres() {
			return field.Errorf("schema", "names a PostgreSQL schema: give a postgres:// --store")
		}
		if err := pgstore.CheckSchema(s.Schema); err != nil {
			return field.Wrap("schema", err)
		}
	}
	return nil
}

// Protocols are the MCP protocol versions a server target can be pinned to,
// newest first.
func Protocols() []string { return mcpclient.Protocols() }
