package audit

// The units the audit's counts are in (results.AuditCell.Unit).
const (
	UnitLines   = "lines"
	UnitWrites  = "writes"
	UnitClauses = "clauses"
	UnitRuns    = "runs"
	UnitCalls   = "calls"
	UnitTabs    = "tabs"
	UnitSources = "sources"
	UnitReads   = "reads"
)
