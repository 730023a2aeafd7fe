package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Merge writes to w the histories in data (files name them in errors) as one
// history: the first's header, then every other line of each, in the order
// given. Each must be a whole history of the same experiment: the shards of
// one run, or the processes of several hosts that ran at once against one
// server.
//
// What check assumes of a merged history: every call's times are the
// nanoseconds of the process that recorded it, comparable within a run,
// which one process records whole, never across runs; so each run must be
// judged alone, which holds when its Notes are its own (a run over MCP maps
// its Note IDs to IDs of its own on the server). A run named in several
// histories — two hosts ran the same seed — is kept as two runs, the later
// ones named after their file ("h2/race-none-seed1"); the same history given
// twice (the same file, or a copy of it) is refused. Histories of runs on
// one Note the user named (--note), from several processes, share the
// Note's version across clocks that cannot be compared: they are refused.
func Merge(ctx context.Context, w io.Writer, files []string, data [][]byte) error {
	if len(data) == 0 {
		return fmt.Errorf("no histories to merge")
	}
	hs := make([]*History, len(data))
	count := map[string]int{} // run → histories that hold it
	notes := map[string]string{}
	seen := map[[sha256.Size]byte]string{} // a history's bytes → its file
	for i, b := range data {
		h, err := Read(ctx, bytes.NewReader(b), files[i])
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		if prev, ok := seen[sum]; ok {
			return &InputError{File: files[i], Msg: fmt.Sprintf("the same history as %s: given twice, every run of it would be checked twice", prev)}
		}
		seen[sum] = files[i]
		if i > 0 && h.Header.Experiment != hs[0].Header.Experiment {
			return &InputError{File: files[i], Msg: fmt.Sprintf("a history of %s, not of %s like %s", h.Header.Experiment, hs[0].Header.Experiment, files[0])}
		}
		if note := namedNote(h.Header.Command); note != "" {
			if prev, ok := notes[note]; ok {
				return &InputError{File: files[i], Msg: fmt.Sprintf("its runs wrote the Note %s, which %s's runs wrote too: calls on one Note from processes whose clocks cannot be compared cannot be checked together", note, prev)}
			}
			notes[note] = files[i]
		}
		for _, r := range h.Runs {
			count[r.Header.Run]++
		}
		hs[i] = h
	}
	for i, b := range data {
		if i > 0 {
			b = b[bytes.IndexByte(b, '\n')+1:] // every line but the header
		}
		b = b[:bytes.LastIndexByte(b, '\n')+1] // a line cut in the middle goes, as Read drops it
		rename := map[string]string{}
		for _, r := range hs[i].Runs {
			if i > 0 && count[r.Header.Run] > 1 {
				rename[r.Header.Run] = label(files[i]) + "/" + r.Header.Run
			}
		}
		if len(rename) > 0 {
			var err error
			if b, err = renameRuns(b, rename); err != nil {
				return &InputError{File: files[i], Msg: err.Error()}
			}
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// namedNote returns the Note a command named with --note, "" when none.
func namedNote(command string) string {
	f := strings.Fields(command)
	for i, a := range f {
		switch {
		case a == "--note" && i+1 < len(f):
			return strings.Trim(f[i+1], "'")
		case strings.HasPrefix(a, "--note="):
			return strings.Trim(strings.TrimPrefix(a, "--note="), "'")
		}
	}
	return ""
}

// label names a history's runs by its file: "h2" for "out/h2.jsonl".
func label(file string) string {
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// renameRuns renames the runs of lines, JSON Lines of a history, as rename
// says.
func renameRuns(lines []byte, rename map[string]string) ([]byte, error) {
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(lines, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, err
		}
		var run string
		if json.Unmarshal(m["run"], &run) == nil {
			if to, ok := rename[run]; ok {
				m["run"], _ = json.Marshal(to)
				b, err := json.Marshal(m)
				if err != nil {
					return nil, err
				}
				out.Write(append(b, '\n'))
				continue
			}
		}
		out.Write(line)
	}
	return out.Bytes(), nil
}
