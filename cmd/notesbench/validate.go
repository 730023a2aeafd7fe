package main

import (
	"context"
	"fmt"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/experiments/validate"
	"github.com/notesbench/notesbench/internal/cli"
	"github.com/notesbench/notesbench/report"
	"github.com/spf13/cobra"
)

// validateOptions holds the validate command's flags and arguments: the
// experiment's, and a payload of the user's.
type validateOptions struct {
	app        *app
	experiment *experimentOptions
	tool       string
	file       string
}

// newValidateCmd is the validate experiment's command, which also takes a
// tool and a payload of the user's to check.
func newValidateCmd(a *app, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{app: a}
	cmd := newExperimentCmd(a, validate.Experiment, func(ctx context.Context, eo *experimentOptions) error {
		opts.experiment = eo
		if runF != nil {
			return runF(ctx, opts)
		}
		return runValidate(ctx, opts)
	})
	cmd.Use = "validate [TOOL FILE|-]"
	cmd.Args = func(_ *cobra.Command, args []string) error {
		if len(args) != 0 && len(args) != 2 {
			return cli.Usage(fmt.Errorf("validate takes no arguments, or a tool and a file (got %s)", report.Count(len(args), "argument")))
		}
		return nil
	}
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 2 {
			opts.tool, opts.file = args[0], args[1]
		}
		return run(cmd, nil)
	}
	// The first argument completes to a tool name, the second to a file.
	cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveDefault
		}
		var names []string
		for _, t := range contract.Tools() {
			names = append(names, t.Name)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	return cmd
}

func runValidate(ctx context.Context, o *validateOptions) error {
	if o.tool != "" {
		return runPayload(ctx, o)
	}
	return runExperiment(ctx, o.experiment)
}

type invalidPayloadError struct{ violations int }

func (e invalidPayloadError) Error() string {
	return "payload is invalid: " + report.Count(e.violations, "violation")
}

// runPayload checks a user's payload against one tool's schema; --out gets the
// JSON result. A payload has no baseline: --baseline and --update-baseline
// are refused.
func runPayload(ctx context.Context, o *validateOptions) error {
	a, out := o.app, &o.experiment.out
	for _, f := range []struct{ flag, value string }{{"--baseline", out.baseline}, {"--update-baseline", out.updateBaseline}} {
		if f.value != "" {
			return cli.Usagef(f.flag, "validate TOOL FILE checks one payload, which has no baseline; baselines hold the published payloads' results (validate with no arguments)")
		}
	}
	format, err := out.check(a, "validate")
	if err != nil {
		return err
	}
	res, err := validate.CheckPayloadFile(ctx, a.stdin, o.tool, o.file)
	if err != nil {
		if ctx.Err() == nil { // a payload that does not read or check is bad input
			err = cli.Usage(err)
		}
		return err
	}
	section := report.Section{Main: []report.Table{report.PayloadTable(o.file, o.tool, res.Valid, res.Violations)},
		Records: report.PayloadRecords(res.Violations)}
	record := res.Record(o.file, notesbenchVersion())
	if err := printResult(a, format, record, section); err != nil {
		return err
	}
	if err := writeResult(out.out, record); err != nil {
		return err
	}
	if !res.Valid {
		return invalidPayloadError{len(res.Violations)}
	}
	return nil
}
