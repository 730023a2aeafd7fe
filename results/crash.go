package results

import (
	"time"

	"github.com/notesbench/notesbench/contract"
)

// The records of the kill -9 test (internal/crash): its settings and its
// runs, as the harness returns them and report renders them.

// CrashSettings are a crash test's parameters, as its record holds them.
type CrashSettings struct {
	Kills int `json:"kills"`
	// Synchronous are the embedded store's settings, a run each; none for a
	// target.
	Synchronous []contract.Synchronous `json:"synchronous"`
	Seed        uint64                 `json:"seed"`
	LifeMinNS   time.Duration          `json:"life_min_ns"`
	LifeMaxNS   time.Duration          `json:"life_max_ns"`
	// Target is the server killed, "" for the embedded store (notesbench
	// serve over stdio on a database of the test's own); Profile maps the
	// contract onto its tools, "" for the contract's own.
	Target  string `json:"target,omitempty"`
	Profile string `json:"profile,omitempty"`
	// Watch is a folder the target's server keeps its files in, whose new
	// files each run lists (CrashRun.NewFiles); "" for none.
	Watch string `json:"watch,omitempty"`
	// StallNS bounds how long a run waits for a write to be answered after
	// a kill before it ends, stalled (CrashRun.Stalled); 0 is the harness's
	// default.
	StallNS time.Duration `json:"stall_ns,omitempty"`
}

// CrashRun is what one run of a kill -9 test went through, judged by its
// own counts: its lost acknowledged writes are the run's own, from the final
// state it read; the checks of its history are a second opinion.
type CrashRun struct {
	Run string `json:"run"`
	// Synchronous is the embedded store's synchronous setting; "" for a
	// target's run, which Target names.
	Synchronous contract.Synchronous `json:"synchronous"`
	Target      string               `json:"target,omitempty"`
	// Kills counts the SIGKILLs the server took.
	Kills int `json:"kills"`
	// Writes counts the write calls sent; Acknowledged those that ended ok
	// (committed, or replayed); CutOff those a kill cut off, whose outcome
	// the editor never learned, and CommittedBeforeKill how many of those
	// had committed all the same: their resend was replayed.
	Writes              int `json:"writes"`
	Acknowledged        int `json:"acknowledged"`
	CutOff              int `json:"cut_off"`
	CommittedBeforeKill int `json:"committed_before_kill"`
	// Errors counts the calls the server refused for another reason than a
	// version conflict.
	Errors int `json:"errors"`
	// UnreadableReads counts the reads during the run that found no
	// document to read, or found the text empty although lines had been
	// acknowledged: a document that no longer reads.
	UnreadableReads int `json:"unreadable_reads"`
	// Unreadable says why the final state does not read (the document is
	// gone, empty, no reply reads, the server does not start again), ""
	// when it reads.
	Unreadable string `json:"unreadable"`
	// Stalled says why the run ended before its kills were done: no write
	// was answered within the run's bound after a kill (a server that no
	// longer starts, a document gone), with the last error an editor was
	// told; "" when every kill was made.
	Stalled string `json:"stalled,omitempty"`
	// Duplicates counts the lines and sources the final state holds more
	// than once: a write applied twice (a resend of a cut-off call the
	// server did not know for the same).
	Duplicates int `json:"duplicates"`
	// NewFiles lists the files that appeared in the folder watched
	// (CrashSettings.Watch) during the run: the documents, and what the kills
	// left beside them.
	NewFiles []string `json:"new_files,omitempty"`
	// LostAcknowledged counts the acknowledged lines and sources missing
	// from the final state, as the run reads it: every one of them when it
	// does not read.
	LostAcknowledged int `json:"lost_acknowledged"`
	// Integrity is PRAGMA integrity_check's answer at the end, for the
	// embedded store: "ok", or its first complaint; "" when not checked.
	Integrity string  `json:"integrity"`
	Seconds   float64 `json:"seconds"`
}
