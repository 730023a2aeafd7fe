package clientaudit

import (
	"fmt"
	"strings"
)

// A WireFault is what the proxy does to the writes a run's plan names.
type WireFault struct {
	// Kind names it; "" is the run without a fault.
	Kind string
	// About says what it does, for the help and the report.
	About string
}

// The faults, by name.
const (
	LoseReply = "lose-reply"
	CutStream = "cut-stream"
	Refuse503 = "503-before"
	Reply502  = "502-after"
	SlowReply = "slow-reply"
)

// NoFault names the run without a fault in a report.
const NoFault = "none"

// Faults are the faults a client audit runs, in order.
var Faults = []WireFault{
	{LoseReply, "the write commits, its reply never comes: the connection is held until the library gives up or --hold passes, then closed"},
	{CutStream, "the write commits, the response is cut halfway through its body and the connection closed"},
	{Refuse503, "the request is answered 503 and never reaches the server"},
	{Reply502, "the write commits, the reply is replaced by a 502"},
	{SlowReply, "the write commits, its reply comes after --slow (past a library's timeout), if the library still waits"},
}

// FaultNames lists the faults' names.
func FaultNames() []string {
	var out []string
	for _, f := range Faults {
		out = append(out, f.Kind)
	}
	return out
}

// ParseFaults reads a comma-separated list of fault names ("all" for every
// one), in the order Faults has them.
func ParseFaults(s string) ([]WireFault, error) {
	if strings.TrimSpace(s) == "all" {
		return Faults, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("an empty fault name in %q (faults: all, %s)", s, strings.Join(FaultNames(), ", "))
		}
		if lookup(name) == nil {
			return nil, fmt.Errorf("unknown fault %q (faults: all, %s)", name, strings.Join(FaultNames(), ", "))
		}
		want[name] = true
	}
	var out []WireFault
	for _, f := range Faults {
		if want[f.Kind] {
			out = append(out, f)
		}
	}
	return out, nil
}

func lookup(name string) *WireFault {
	for i := range Faults {
		if Faults[i].Kind == name {
			return &Faults[i]
		}
	}
	return nil
}
