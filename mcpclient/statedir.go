package mcpclient

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// DirPlaceholder, in the command of a stdio target or in Options.Spawn, is
// a fresh, empty folder that Dial makes for the Target it opens and Close
// removes once the server is gone: a server keeping its state in files
// (its store, its vault, its database) starts from nothing at each open —
// each command, each part of an audit — and keeps that state across the
// restarts within one (a kill fault's). Errors and records name the
// target as written, with the placeholder.
const DirPlaceholder = "{dir}"

// named reports whether any of words names DirPlaceholder.
func named(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.Contains(w, DirPlaceholder) })
}

// CheckDir checks that spec names DirPlaceholder only where it stands for a
// folder notesbench makes: in a command, never in a URL, for no folder of
// notesbench's is a server's it does not start.
func CheckDir(spec TargetSpec) error {
	if named(append(slices.Clone(spec.URLs), spec.URL)) {
		return fmt.Errorf("%s names %s in its URL: it stands for a folder of the server's state, in the command of a stdio target or of --spawn", spec.Raw, DirPlaceholder)
	}
	return nil
}

// withStateDir makes the folder DirPlaceholder stands for in spec's
// command or opts.Spawn, in opts.TempDir, and returns them with its path in
// place of the placeholder, and the path; spec and opts unchanged, and "",
// when neither names it. A URL naming it is an error (CheckDir).
func withStateDir(spec TargetSpec, opts Options) (TargetSpec, Options, string, error) {
	if err := CheckDir(spec); err != nil {
		return spec, opts, "", fmt.Errorf("target %w", err)
	}
	if !named(spec.Command) && !named(opts.Spawn) {
		return spec, opts, "", nil
	}
	dir, err := os.MkdirTemp(opts.TempDir, "notesbench-dir-")
	if err != nil {
		return spec, opts, "", fmt.Errorf("target %s: making the folder of %s: %w", spec.Raw, DirPlaceholder, err)
	}
	fill := func(words []string) []string {
		if words == nil {
			return nil
		}
		out := make([]string, len(words))
		for i, w := range words {
			out[i] = strings.ReplaceAll(w, DirPlaceholder, dir)
		}
		return out
	}
	spec.Command, opts.Spawn = fill(spec.Command), fill(opts.Spawn)
	return spec, opts, dir, nil
}
