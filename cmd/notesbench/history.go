package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/notesbench/notesbench/history"
	"github.com/notesbench/notesbench/internal/cli"
)

// historyFlags record every call of a run in a history, for notesbench check.
type historyFlags struct {
	path   string
	writer *history.Writer
}

func (h *historyFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&h.path, "history", "", "record every call of every run, with its times and outcome, in this JSON Lines file for notesbench check (written whole or not at all)")
}

// start checks the history file can be written, before anything runs, and
// returns the Writer the experiment records into (nil without --history).
func (h *historyFlags) start(a *app, experiment string) (*history.Writer, error) {
	if h.path == "" {
		return nil, nil
	}
	if err := checkHistoryWritable(h.path); err != nil {
		return nil, cli.UsageErr("--history", err)
	}
	h.writer = history.NewWriter(history.Header{Experiment: experiment,
		Command: cli.CommandLine(a.args)})
	return h.writer, nil
}

// finish writes the history, when one was recorded.
func (h *historyFlags) finish() error {
	if h.writer == nil {
		return nil
	}
	if err := h.writer.WriteFile(h.path); err != nil {
		return fmt.Errorf("--history: %w", err)
	}
	return nil
}
