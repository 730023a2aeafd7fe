package mcpclient

import (
	"context"
	"testing"
)

// A command that starts an HTTP server must name the port Dial chooses:
// one that names none would listen elsewhere, and the wait for it to listen
// on the port chosen could only run out (two minutes by default). Dial
// refuses it before it starts anything.
func TestSpawnNamesThePort(t *testing.T) {
	spec, err := Parse("http://127.0.0.1:{port}/mcp")
	if err != nil {
		t.Fatal(err)
	}
	// Cancelled, so that a Dial that started the command ends at once,
	// in another error.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Dial(cctx, spec, Options{Spawn: []string{"sleep", "600"}})
	want := "target http://127.0.0.1:{port}/mcp: the command that starts the server (sleep 600) names no {port}: it must listen on the port notesbench chooses"
	if err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}
