package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// emptyMeansKey is the annotation of a flag of text whose empty value means
// something of its own (serve --note "": no Note); the annotation says what.
const emptyMeansKey = "notesbench_empty_means"

// EmptyMeans declares that the flag called name in fs takes an empty value,
// meaning what: RefuseEmpty lets it through.
func EmptyMeans(fs *pflag.FlagSet, name, what string) {
	if err := fs.SetAnnotation(name, emptyMeansKey, []string{what}); err != nil {
		panic(err) // no such flag: a mistake in the declaration
	}
}

// EmptyMeaning says what an empty value of f means, as EmptyMeans declared
// it; "" when nothing was declared, and RefuseEmpty refuses one.
func EmptyMeaning(f *pflag.Flag) string {
	if what := f.Annotations[emptyMeansKey]; len(what) > 0 {
		return what[0]
	}
	return ""
}

// RefuseEmpty refuses a flag of text given with an empty value, unless its
// declaration says what an empty value means (EmptyMeans). An empty
// --target, --profile or --history is most often a script's variable that
// was never set: taken as the default, it would run something else than
// was asked (the embedded store instead of the server) and pass. It is the
// one such check: the root runs it for every command before it runs.
func RefuseEmpty(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || EmptyMeaning(f) != "" || !emptyText(f) {
			return
		}
		err = Usagef("--"+f.Name, "empty: give a value, or leave the flag out")
		if def := f.DefValue; def != "" && def != "[]" {
			err = Usagef("--"+f.Name, "empty: give a value, or leave the flag out (default %s)", redactPasswords(def))
		}
	})
	return err
}

// emptyText reports whether f takes text, or a list, and holds none.
func emptyText(f *pflag.Flag) bool {
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return len(s.GetSlice()) == 0
	}
	switch f.Value.Type() {
	case "string", "strings":
		return f.Value.String() == ""
	}
	return false
}

// CompleteFlag makes the flag called name of cmd complete to values: one of
// them, or (list) several, comma-separated. A value may carry a description
// after a tab.
func CompleteFlag(cmd *cobra.Command, name string, list bool, values ...string) {
	cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if !list {
			return values, cobra.ShellCompDirectiveNoFileComp
		}
		head := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			head = toComplete[:i+1]
		}
		listed := strings.Split(head, ",")
		var out []string
		for _, v := range values {
			if name, _, _ := strings.Cut(v, "\t"); !slices.Contains(listed, name) {
				out = append(out, head+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
}

// Runner returns a command's RunE: runF when a test gave one (to see the
// options the flags made), run otherwise.
func Runner[O any](opts O, runF, run func(context.Context, O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if runF != nil {
			return runF(cmd.Context(), opts)
		}
		return run(cmd.Context(), opts)
	}
}
