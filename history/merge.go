package history

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// Merge writes to w the histories in data (files name them in errors) as one
// history: the first's header, then every other line of each, in the order
// given. Each must be a whole history of the same experiment, and no run may
// be in two of them: the shards of one run, or the processes of several
// hosts, each recorded runs of its own.
//
// Every call's times are the nanoseconds of the process that recorded it,
// counted from its own start: comparable within a run, which one process
// records whole, never across runs. The checks judge each run alone (a
// run's register is its Notes', which no other run writes), so the merge
// holds nothing the checker cannot judge; a run named in two histories —
// the same Notes recorded by two processes, whose clocks cannot be compared —
// is refused.
func Merge(ctx context.Context, w io.Writer, files []string, data [][]byte) error {
	if len(data) == 0 {
		return fmt.Errorf("no histories to merge")
	}
	seen := map[string]string{} // run → the file it is in
	var experiment string
	for i, b := range data {
		h, err := Read(ctx, bytes.NewReader(b), files[i])
		if err != nil {
			return err
		}
		if i == 0 {
			experiment = h.Header.Experiment
		} else if h.Header.Experiment != experiment {
			return &InputError{File: files[i], Msg: fmt.Sprintf("a history of %s, not of %s like %s", h.Header.Experiment, experiment, files[0])}
		}
		for _, r := range h.Runs {
			if prev, ok := seen[r.Header.Run]; ok {
				return &InputError{File: files[i], Line: r.Line, Msg: fmt.Sprintf("run %q is in %s too: two processes recorded one run, and their clocks cannot be compared", r.Header.Run, prev)}
			}
			seen[r.Header.Run] = files[i]
		}
		if i > 0 {
			// Every line but the header, as it was written.
			b = b[bytes.IndexByte(b, '\n')+1:]
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}
