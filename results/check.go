package results

import "github.com/notesbench/notesbench/contract"

// The records of package check: what its Run found in a set of histories,
// as check returns it and report renders it.

// The checks, in the order a CheckReport lists them.
const (
	CheckLinearizability = "linearizability"
	CheckVersions        = "versions"
	CheckLostUpdates     = "lost-updates"
	CheckDuplicates      = "duplicates"
	CheckStaleOverwrites = "stale-overwrites"
	CheckEmptyReads      = "empty-reads"
)

// CheckVerdict is what a check found.
type CheckVerdict string

// The verdicts of a check.
const (
	// CheckOK: the check judged everything it could and found nothing wrong.
	CheckOK CheckVerdict = "ok"
	// CheckViolated: the check found at least one violation.
	CheckViolated CheckVerdict = "violated"
	// CheckUnknown: no violation found, but part of the histories could not
	// be judged (the check timed out, or lacked what it needed, or a history
	// was cut short), or there was nothing to judge.
	CheckUnknown CheckVerdict = "unknown"
	// CheckNotApplicable: the check is no rule of the runs it was given (the
	// versions check on digest or opaque versions, which need not change
	// with every commit). It is neither ok nor unknown: nothing was judged,
	// and nothing needed to be.
	CheckNotApplicable CheckVerdict = "n/a"
)

// CheckReport is what check found: one CheckResult per check, and the
// figures of every run.
type CheckReport struct {
	Checks []CheckResult `json:"checks"`
	Runs   []CheckRun    `json:"runs"`
	// Visualization is porcupine's HTML page of the first linearizability
	// violation, when the check was asked to keep it and there is one, with
	// the faults of its run marked on the timeline.
	Visualization []byte `json:"-"`
	// Empty says the histories hold no run: nothing was judged, and every
	// check is CheckUnknown.
	Empty bool `json:"-"`
	// Cut names the histories that were cut short (history.History.Cut),
	// each with the line it ends after: "h.jsonl after line 12". Their
	// verdicts are at best CheckUnknown.
	Cut []string `json:"-"`
	// Agents holds, for served histories (history.ExperimentServe), each
	// client of each run and the verdict on it.
	Agents []AgentResult `json:"agents,omitempty"`
}

// Failed returns the checks that found a violation, and those that could
// not judge everything. A CheckNotApplicable check is neither.
func (r *CheckReport) Failed() (violated, unknown []string) {
	for _, c := range r.Checks {
		switch c.Verdict {
		case CheckViolated:
			violated = append(violated, c.Check)
		case CheckUnknown:
			unknown = append(unknown, c.Check)
		}
	}
	return violated, unknown
}

// CheckResult is one check's verdict over every history.
type CheckResult struct {
	Check   string       `json:"check"`
	Verdict CheckVerdict `json:"verdict"`
	// Judged counts what the check judged: registers for linearizability,
	// committed writes for versions and stale-overwrites, acknowledged intents
	// for lost-updates, intents for duplicates.
	Judged int `json:"judged"`
	// Violations counts what it found wrong, in the same units.
	Violations int `json:"violations"`
	// First describes the first violations (check.MaxShown of them at most),
	// each naming its file, run and operations; Proofs holds the same
	// violations as data, in the same order: the operations that show each.
	First  []string     `json:"first"`
	Proofs []CheckProof `json:"proofs,omitempty"`
	// Unjudged counts what the check could not judge, and Reason says why
	// (or, for a check that is ok or n/a, which runs it did not apply to).
	Unjudged int    `json:"unjudged"`
	Reason   string `json:"reason,omitempty"`
	// NotApplicable counts the runs the check is no rule of.
	NotApplicable int `json:"not_applicable,omitempty"`
}

// CheckRun holds one run's figures.
type CheckRun struct {
	File    string           `json:"file"`
	Run     string           `json:"run"`
	Seed    uint64           `json:"seed"`
	Variant contract.Variant `json:"variant"`
	Policy  string           `json:"policy,omitempty"`
	Calls   int              `json:"calls"`
	// Registers is how many versioned registers (partitions) the run has, and
	// Linearizable the verdict over all of them.
	Registers    int          `json:"registers"`
	Linearizable CheckVerdict `json:"linearizable"`
	// Versions is the versions check's verdict on the run: CheckNotApplicable
	// for digest and opaque versions. VersionCollisions counts committed
	// writes whose version another committed write of the register had made,
	// or that left it unchanged.
	Versions          CheckVerdict `json:"versions"`
	VersionCollisions int          `json:"version_collisions"`
	// Editors holds the acknowledged and lost intents per editor, in order of
	// first call; Lost is their sum.
	Editors []CheckEditor `json:"editors"`
	Lost    int           `json:"lost"`
	// Duplicates counts tabs, sources and lines beyond one per intent;
	// ReplayMismatches the replays that differ from their key's first result.
	Duplicates       int `json:"duplicates"`
	ReplayMismatches int `json:"replay_mismatches"`
	StaleOverwrites  int `json:"stale_overwrites"`
	// EmptyReads counts the reads that returned an empty document after
	// lines had been written and acknowledged (check empty-reads).
	EmptyReads int `json:"empty_reads,omitempty"`
	// Faults counts the faults injected into the run.
	Faults int `json:"faults"`
}

// CheckEditor is one editor's acknowledged intents and how many of them the
// final state lacks.
type CheckEditor struct {
	Editor       string `json:"editor"`
	Acknowledged int    `json:"acknowledged"`
	Lost         int    `json:"lost"`
}

// AgentResult is what an agent (one MCP client name and version, over its
// sessions) did in a served history, and the verdict on it.
type AgentResult struct {
	File string `json:"file"`
	Run  string `json:"run"`
	// Agent names it: its clientInfo name and version ("claude-code
	// 2.1.3"); Name and Version are those.
	Agent   string `json:"agent"`
	Name    string `json:"name"`
	Version string `json:"version"`
	// Sessions are the numbers of its sessions in the history, in order.
	Sessions []int `json:"sessions"`
	Calls    int   `json:"calls"`
	// Writes counts its write calls, Committed those that committed.
	Writes    int `json:"writes"`
	Committed int `json:"committed"`
	// Conflicts counts its writes refused for a stale version. After a
	// conflict, ReReads counts the times it read the Note again before its
	// next write there; that next write is a ReApply when it built on what
	// the agent saw since, a Refresh when it sent a fresher version with
	// content built before.
	Conflicts int `json:"conflicts"`
	ReReads   int `json:"rereads"`
	ReApplies int `json:"reapplies"`
	Refreshes int `json:"refreshes"`
	// SameKeyResends counts writes under a key it had sent before (the
	// server replays or refuses them; nothing is made twice).
	SameKeyResends int `json:"same_key_resends"`
	// What the agent checks found: KeyChanges (key-changes), Duplicates
	// (the copies beyond one, in the final text, of lines it added more
	// than once), PersonLinesDropped (person-lines), StaleWrites
	// (stale-writes), TabReferences (tab-references).
	KeyChanges         int `json:"key_changes"`
	Duplicates         int `json:"duplicates"`
	PersonLinesDropped int `json:"person_lines_dropped"`
	StaleWrites        int `json:"stale_writes"`
	TabReferences      int `json:"tab_references"`
	// Verdict is check.AgentCareful, check.AgentCareless or
	// check.AgentIdle; Why says what made it careless.
	Verdict string   `json:"verdict"`
	Why     []string `json:"why"`
}

// CheckProof is one violation as the operations of a history that show it,
// as Elle and Jepsen give an anomaly: the calls a reader needs to see it
// (who read what, which write replaced it, what the final state lacks),
// and the faults of the run before the last of them.
type CheckProof struct {
	File string `json:"file"`
	Run  string `json:"run"`
	Seed uint64 `json:"seed"`
	// Says is the violation in a sentence, as First has it.
	Says   string       `json:"says"`
	Ops    []ProofOp    `json:"ops"`
	Faults []ProofFault `json:"faults,omitempty"`
}

// ProofOp is one call of a proof, as the history has it.
type ProofOp struct {
	// Call is the call's place among its run's calls, from 0.
	Call    int    `json:"call"`
	Editor  string `json:"editor"`
	Session int    `json:"session"`
	// Tool is the contract's tool; ServerTool the server's own that stood
	// for it, "" for the contract's own tools.
	Tool       string `json:"tool"`
	ServerTool string `json:"server_tool,omitempty"`
	Note       string `json:"note"`
	Tab        string `json:"tab,omitempty"`
	Intent     string `json:"intent,omitempty"`
	Expected   string `json:"expected_version,omitempty"`
	Base       string `json:"base_version,omitempty"`
	Key        string `json:"idempotency_key,omitempty"`
	Outcome    string `json:"outcome"`
	Version    string `json:"version,omitempty"`
	ErrorKind  string `json:"error_kind,omitempty"`
	InvokeNS   int64  `json:"invoke_ns"`
	ReturnNS   int64  `json:"return_ns"`
	// What is the call as a reader reads it.
	What string `json:"what"`
}

// ProofFault is a fault of a proof's run.
type ProofFault struct {
	Kind    string `json:"fault"`
	StartNS int64  `json:"start_ns"`
	EndNS   int64  `json:"end_ns"`
	Detail  string `json:"detail,omitempty"`
}
