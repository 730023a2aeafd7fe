package main

import (
	"strings"
	"testing"

	"github.com/notesbench/notesbench/backend"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/spf13/pflag"
)

// $NOTESBENCH_POSTGRES_URL is the embedded store's default: a run against a
// server target is not refused for it, nor records it as its store; a
// --store given beside a server target still is refused.
func TestPostgresDefaultLeavesServerTargets(t *testing.T) {
	t.Setenv("NOTESBENCH_POSTGRES_URL", "postgres://u:secret@127.0.0.1:1/db")
	for _, tc := range []struct {
		args    []string
		store   string // the spec's store, when it is made
		refused string // the error's start, when it is refused
	}{
		{args: nil, store: "postgres://u:secret@127.0.0.1:1/db"},
		{args: []string{"--target", "stdio:notesbench serve"}, store: ""},
		{args: []string{"--target", "http://127.0.0.1:1/mcp", "--store", "postgres://u:secret@127.0.0.1:1/db"}, refused: "--store:"},
	} {
		var tf targetFlags
		fs := pflag.NewFlagSet("race", pflag.ContinueOnError)
		tf.register(fs, false)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		spec, err := tf.spec(backend.Spec{})
		if err == nil {
			err = cli.FlagError(fs, spec.Check())
		}
		switch {
		case tc.refused != "":
			if err == nil || !strings.HasPrefix(err.Error(), tc.refused) {
				t.Errorf("%q: got %v, want an error starting %q", tc.args, err, tc.refused)
			}
		case err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case spec.Store != tc.store:
			t.Errorf("%q: store %q, want %q", tc.args, spec.Store, tc.store)
		}
	}
}
