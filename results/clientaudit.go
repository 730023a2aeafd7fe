package results

// ClientAudit is what `notesbench audit --client` measured: one driver (an
// application written against one MCP client library) appending lines to a
// Note of notesbench's reference server, once per fault, with the faults on
// the wire notesbench owns between them.
type ClientAudit struct {
	// Command is the driver's command line, as given.
	Command string `json:"command"`
	// Client is the clientInfo the driver's library sent in its initialize
	// ("name version"), empty when it sent none that the proxy saw.
	Client string `json:"client,omitempty"`
	// Protocol is the MCP protocol version the library spoke, as its
	// requests' Mcp-Protocol-Version header named it.
	Protocol string `json:"protocol,omitempty"`
	// Lines is how many lines the driver was asked to append in each run.
	Lines int `json:"lines"`
	// Seed chose which writes each fault hits.
	Seed uint64 `json:"seed"`
	// Runs are the runs, one per fault, the run without a fault first.
	Runs []ClientRun `json:"runs"`
	// Interrupted says the audit was stopped before every run ended.
	Interrupted bool `json:"interrupted,omitempty"`
}

// ClientRun is one run of the driver under one fault.
type ClientRun struct {
	// Fault names the fault ("none" for the run without one).
	Fault string `json:"fault"`
	// Injected is how many writes the fault hit.
	Injected int `json:"injected"`
	// Calls are the calls the driver reported (one JSON line each); OK and
	// Failed split them by what the application was told.
	Calls  int `json:"calls"`
	OK     int `json:"told_ok"`
	Failed int `json:"told_error"`
	// FailedCommitted counts the calls told error whose write the server
	// had committed before the application was told: what an application
	// that makes the write again under a new key writes twice.
	FailedCommitted int `json:"told_error_committed"`
	// Errors are the distinct errors the application was told, the first
	// few, as the driver wrote them.
	Errors []string `json:"errors,omitempty"`
	// Requests are the write requests (tools/call of a write tool) the
	// server received.
	Requests int `json:"requests"`
	// Resent counts requests the library sent on its own: beyond the calls
	// the driver made with the same idempotency key. SameID resent the
	// JSON-RPC id of an earlier request with that key, NewID a new one.
	ResentSameID int `json:"resent_same_id"`
	ResentNewID  int `json:"resent_new_id"`
	// NewKey counts the calls the application made for a line it had
	// already called for, with another idempotency key.
	NewKey int `json:"new_key"`
	// NoKey counts write requests that carried no idempotency key.
	NoKey int `json:"no_key"`
	// The anomalies, each a count of lines: a line in the Note more than
	// once; a line whose last call the application was told failed that is
	// in the Note; a line the application was told was written that is not.
	AppliedTwice     int `json:"applied_twice"`
	FailedButWritten int `json:"told_error_but_written"`
	OKButMissing     int `json:"told_ok_but_missing"`
	// Lost counts lines the application was told failed that are not in
	// the Note: what it knows about, not an anomaly.
	Lost int `json:"lost"`
	// Proofs are the operations that show the first anomalies found, each
	// a line's calls and requests in the order they happened.
	Proofs []ClientProof `json:"proofs,omitempty"`
	// Error says why the run was not judged: the driver failed, wrote a line
	// that is not the protocol's, or ran out of its time.
	Error string `json:"error,omitempty"`
}

// Anomalies is how many lines of the run show an anomaly.
func (r ClientRun) Anomalies() int { return r.AppliedTwice + r.FailedButWritten + r.OKButMissing }

// ClientProof is one anomalous line and the operations that show it.
type ClientProof struct {
	Line    int      `json:"line"`
	Anomaly string   `json:"anomaly"`
	Events  []string `json:"events"`
}

// The anomalies of a client audit, by the names its proofs carry.
const (
	ClientAppliedTwice     = "applied twice"
	ClientFailedButWritten = "told it failed, but written"
	ClientOKButMissing     = "told it was written, but missing"
)

// Passed reports whether every run was judged and none showed an anomaly.
func (a ClientAudit) Passed() bool {
	for _, r := range a.Runs {
		if r.Error != "" || r.Anomalies() > 0 {
			return false
		}
	}
	return !a.Interrupted && len(a.Runs) > 0
}

// Failed reports whether a run showed an anomaly or ended in an error.
func (a ClientAudit) Failed() bool {
	for _, r := range a.Runs {
		if r.Error != "" || r.Anomalies() > 0 {
			return true
		}
	}
	return false
}
