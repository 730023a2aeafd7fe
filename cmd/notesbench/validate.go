package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/report"
	"github.com/notesbench/notesbench/results"
	"github.com/notesbench/notesbench/sim"
)

// validateOptions holds the validate command's flags and arguments.
type validateOptions struct {
	app  *app
	out  outFlags
	tool string
	file string
}

func newValidateCmd(a *app, runF func(context.Context, *validateOptions) error) *cobra.Command {
	opts := &validateOptions{app: a}
	cmd := &cobra.Command{
		Use:   "validate [TOOL FILE|-]",
		Short: "Check payloads against the rebuilt tools/list schema",
		Long: `With no arguments, validate checks the eight payloads of the published table with a
deliberately minimal validator (required, enum, additionalProperties, minItems and
maxItems only) and with the full JSON Schema validator, and prints both verdicts.

With a tool name and a file (or - for standard input), it checks that payload against
the tool's full input schema and prints every violation, path and keyword; it exits 1
when the payload is invalid.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 0 && len(args) != 2 {
				return usageError{fmt.Errorf("validate takes no arguments, or a tool and a file (got %d arguments)", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 2 {
				opts.tool, opts.file = args[0], args[1]
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	opts.out.register(cmd.Flags(), noReplications)
	return cmd
}

func runValidate(ctx context.Context, o *validateOptions) error {
	a := o.app
	if o.tool != "" {
		format, err := o.out.check(a, "validate")
		if err != nil {
			return err
		}
		return validatePayload(a, o, format)
	}
	return runExperiment(ctx, a, &o.out, "validate", func() (sim.Experiment[results.ValidateRow, struct{}], error) {
		return sim.DefaultValidation(), nil
	})
}

type invalidPayloadError struct{ violations int }

func (e invalidPayloadError) Error() string {
	return fmt.Sprintf("payload is invalid: %d violations", e.violations)
}

// validatePayload checks a user's payload against one tool's schema.
func validatePayload(a *app, o *validateOptions, format report.Format) error {
	var data []byte
	var err error
	if o.file == "-" {
		data, err = io.ReadAll(a.stdin)
	} else {
		data, err = os.ReadFile(o.file)
	}
	if err != nil {
		return usageError{fmt.Errorf("reading payload: %w", err)}
	}
	res, err := sim.ValidatePayload(o.tool, data)
	if err != nil {
		return usageError{fmt.Errorf("%s: %w", o.file, err)}
	}
	if format == report.FormatJSON {
		err = report.WriteJSON(a.stdout, res)
	} else {
		t := report.Table{Title: fmt.Sprintf("%s against the %s schema", o.file, o.tool), Header: []string{"Path", "Keyword", "Message"}}
		for _, v := range res.Violations {
			t.Rows = append(t.Rows, []string{v.Path, v.Keyword, v.Message})
		}
		if res.Valid {
			t.Notes = []string{"valid"}
		}
		err = report.RenderWidth(a.stdout, format, a.width, t)
	}
	if err != nil {
		return err
	}
	if !res.Valid {
		return invalidPayloadError{len(res.Violations)}
	}
	return nil
}
