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
	// HTTP and Stdio say over which transports it is made: a driver that
	// reaches the server at its URL, or one whose library starts it ({serve}).
	HTTP, Stdio bool
}

// The faults, by name.
const (
	LoseReply = "lose-reply"
	CutStream = "cut-stream"
	Refuse503 = "503-before"
	Reply502  = "502-after"
	SlowReply = "slow-reply"
	Kill      = "kill"
)

// NoFault names the run without a fault in a report.
const NoFault = "none"

// Faults are the faults a client audit runs, in order.
var Faults = []WireFault{
	{LoseReply, "the write commits, its reply never comes: the connection (over stdio, the server process) is held until the library gives up or --hold passes, then closed (killed)", true, true},
	{CutStream, "the write commits, the response is cut halfway through its body and the connection closed", true, false},
	{Refuse503, "the request is answered 503 and never reaches the server", true, false},
	{Reply502, "the write commits, the reply is replaced by a 502", true, false},
	{SlowReply, "the write commits, its reply comes after --slow (past a library's timeout), if the library still waits", true, true},
	{Kill, "the write commits, and the server process the library started is killed -9 before it replies", false, true},
}

// On says whether f is made over stdio (a library that starts its server)
// or over HTTP.
func (f WireFault) On(stdio bool) bool {
	if stdio {
		return f.Stdio
	}
	return f.HTTP
}

// Transport names the transport, for an error.
func Transport(stdio bool) string {
	if stdio {
		return "stdio (a driver whose library starts {serve})"
	}
	return "HTTP (a driver that reaches $NOTESBENCH_SERVER_URL)"
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
// one made over the transport), in the order Faults has them; a fault not
// made over the transport is an error.
func ParseFaults(s string, stdio bool) ([]WireFault, error) {
	if strings.TrimSpace(s) == "all" {
		var out []WireFault
		for _, f := range Faults {
			if f.On(stdio) {
				out = append(out, f)
			}
		}
		return out, nil
	}
	want := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("an empty fault name in %q (faults: all, %s)", s, strings.Join(FaultNames(), ", "))
		}
		f := lookup(name)
		if f == nil {
			return nil, fmt.Errorf("unknown fault %q (faults: all, %s)", name, strings.Join(FaultNames(), ", "))
		}
		if !f.On(stdio) {
			return nil, fmt.Errorf("%s is not made over %s", name, Transport(stdio))
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
