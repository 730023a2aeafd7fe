package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/notesbench/notesbench/contract"
	"github.com/notesbench/notesbench/sim"
	"github.com/notesbench/notesbench/store"
)

// An enum is the values a flag takes, for shell completion: one of them, or
// (list) several, comma-separated.
type enum struct {
	values []string
	list   bool
}

var (
	guards         = []string{string(contract.GuardNone), string(contract.GuardNote), string(contract.GuardTab)}
	versionFormats = []string{string(contract.FormatMS), string(contract.FormatUSSuffix), string(contract.FormatCounter)}
	formats        = []string{"table", "markdown", "csv", "json"}
)

// modes are race's guard/policy pairs: none takes no policy.
func modes() []string {
	out := []string{string(contract.GuardNone)}
	for _, g := range guards[1:] {
		for _, p := range []sim.Policy{sim.Reapply, sim.Refresh} {
			out = append(out, g+"/"+string(p))
		}
	}
	return out
}

// enums maps a flag name to its values, for every command that has the flag;
// commandEnums overrides it for one command. A new enum flag adds its line
// here.
var enums = map[string]enum{
	"clock":          {values: []string{string(sim.ClockReal), string(sim.ClockVirtual)}},
	"format":         {values: formats},
	"guards":         {values: guards, list: true},
	"scopes":         {values: guards, list: true},
	"guard":          {values: guards},
	"modes":          {values: modes(), list: true},
	"formats":        {values: versionFormats, list: true},
	"version-format": {values: versionFormats},
	"order":          {values: []string{string(contract.OrderKeyFirst), string(contract.OrderVersionFirst)}},
	"synchronous":    {values: []string{string(store.SyncNormal), string(store.SyncFull)}},
	"table":          {values: []string{"a", "b", sim.CreateBothTables}},
}

var commandEnums = map[string]map[string]enum{
	"bench":     {"format": {values: append(slices.Clone(formats), "gobench")}},
	"reproduce": {"format": {values: []string{"table", "markdown", "json"}}, "only": {values: stepNames(reproSteps()), list: true}},
	"conform":   {"format": {values: []string{"table", "markdown", "json"}}},
}

// registerCompletions makes every enum flag of cmd and its subcommands
// complete to its values.
func registerCompletions(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		registerCompletions(sub)
	}
	for name, e := range enums {
		if over, ok := commandEnums[cmd.Name()][name]; ok {
			e = over
		}
		if cmd.Flags().Lookup(name) != nil {
			cmd.RegisterFlagCompletionFunc(name, e.complete)
		}
	}
	for name, e := range commandEnums[cmd.Name()] {
		if _, done := enums[name]; !done && cmd.Flags().Lookup(name) != nil {
			cmd.RegisterFlagCompletionFunc(name, e.complete)
		}
	}
}

// complete returns the values that complete toComplete: for a list, what is
// typed before the last comma followed by each value not listed yet.
func (e enum) complete(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if !e.list {
		return e.values, cobra.ShellCompDirectiveNoFileComp
	}
	head := ""
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		head = toComplete[:i+1]
	}
	listed := strings.Split(head, ",")
	var out []string
	for _, v := range e.values {
		if !slices.Contains(listed, v) {
			out = append(out, head+v)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}
