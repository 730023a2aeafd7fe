package audit

import (
	"cmp"

	"github.com/notesbench/notesbench/internal/plural"
	"github.com/notesbench/notesbench/results"
)

// Profiled is what a target's profile says of its server.
type Profiled struct {
	// Server is the server the profile was written for; Document the
	// document each run writes, as the profile names it.
	Server, Document string
	// WriteMode is how its write states the change (the profile's write
	// mode: content, patch or append) and WriteTool the server's tool it
	// goes through; both "" when the profile maps no write.
	WriteMode, WriteTool string
}

// writeStyles say each of the profile's write modes in words.
var writeStyles = map[string]string{"content": "whole text", "patch": "patch", "append": "append"}

// Subject is what r says of the audit's subject beside what the target
// says of itself (Run adds that): the profile it was given, the server
// that profile was written for, how a write states its change, and how the
// runs' documents are laid out, parallel of them at once (0: each
// experiment's default); version is notesbench's.
func (r Reach) Subject(parallel int, version string) results.AuditSubject {
	s := results.AuditSubject{Target: r.Target, Profile: r.Profile, WriteStyle: "whole text (edit_note_tab replace_text)"}
	if p := r.Profiled; p != nil && r.Profile != "" {
		s.Server = p.Server
		if p.WriteTool != "" {
			s.WriteStyle = cmp.Or(writeStyles[p.WriteMode], p.WriteMode) + " (" + p.WriteTool + ")"
		} else {
			s.WriteStyle = "none: the profile maps no write (a read-only server)"
		}
	}
	if !r.Remote {
		s.Server = "notesbench " + version + " (the embedded store)"
	}
	at := "each experiment's own number of runs at once"
	if parallel > 0 {
		at = plural.Count(parallel, "run") + " of each experiment at once (--parallel)"
	}
	store := "all in the server's one store"
	if r.StateDir != "" {
		store = "in a store of the part's own (" + r.StateDir + " is a fresh folder for each part), shared by the part's runs"
	}
	switch {
	case !r.Remote:
		s.Documents = "a database of its own for every run: runs share nothing"
	case r.Profile == "":
		s.Documents = "a Note of its own for every run (notesbench_create_note), " + store + "; " + at +
			": what one run loses through another's writes to the store is the server's, and counted as such"
	default:
		doc := ""
		if r.Profiled != nil {
			doc = " named " + r.Profiled.Document
		}
		s.Documents = "a document of its own for every run" + doc + ", " + store + "; " + at +
			": a server that rewrites one file for every document loses one run's writes through another's, and that is counted as the server's loss (--parallel 1 runs one at a time)"
	}
	return s
}
