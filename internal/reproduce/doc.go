// Package reproduce runs every experiment at its published parameters, each
// with its verdicts, and the timing ablation, and builds the reproduction's
// record (results.Reproduction) and tables (Run); it puts the shards of a
// sharded reproduction back together into the same record and tables
// (Merge).
//
// A reproduction is a composition, not an engine of its own: each of its
// steps is one experiment, reached through package experiment's API as every
// command reaches it (Descriptor.New, Instance.SetClock, Instance.Editing),
// and run as jobs of units (Instance.Job, Instance.ReplicationsJob) whose
// units are numbered across the steps, so that a shard of a reproduction
// runs its share of every step and a merge reads every step's back. How
// each experiment takes part — its share of the replications, whether it
// runs under both timing models — is declared with the experiment
// (experiment.Info.Reproduce).
//
// It also reads what the command was given as a reproduction wants it: the
// experiments --only names (Only), the machine's record (Machine), and a
// shard checked against the reproduction it is a shard of (CheckShard), or
// a reproduction set beside another's verdicts (Reproduced.Against).
//
// Like experiment it parses no flags, prints nothing and links no
// implementation of the contract, and it opens no files but /proc/cpuinfo
// (for the machine's record): cmd/notesbench hands it every target and
// renders what it returns with package report.
package reproduce
