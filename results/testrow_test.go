package results

// raceRow is a row of race's published table with the figures the tests of
// results read (the race experiment's own row is experiments/race.Row).
type raceRow struct {
	Guard, Policy                         string
	Lost, ConflictsClaude, ConflictsHuman int
	MaxTries                              int
	WallS                                 float64
}

var raceRowFields = Fields[raceRow]{
	Keys: map[string]func(raceRow) string{
		"guard":  func(r raceRow) string { return r.Guard },
		"policy": func(r raceRow) string { return r.Policy },
	},
	Figures: map[string]func(raceRow) Value{
		"lost":             Count(func(r raceRow) int { return r.Lost }),
		"conflicts_claude": Count(func(r raceRow) int { return r.ConflictsClaude }),
		"conflicts_human":  Count(func(r raceRow) int { return r.ConflictsHuman }),
		"max_tries":        Count(func(r raceRow) int { return r.MaxTries }),
		"wall_s":           Number(func(r raceRow) float64 { return r.WallS }),
	},
}

func (r raceRow) KeyOf(name string) string           { return raceRowFields.Key(r, name) }
func (r raceRow) FigureOf(name string) (Value, bool) { return raceRowFields.Figure(r, name) }
func (r raceRow) Names() (keys, figures []string)    { return raceRowFields.Names() }
