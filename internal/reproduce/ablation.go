package reproduce

import "github.com/notesbench/notesbench/sim"

// An ingredient is one timing model of the ablation: the default, one of the
// published-fit profile's two rules alone, or both.
type ingredient struct {
	// Name is a short name: "default (pause think, no oversleep)", "pause
	// uniform0 alone", …
	Name string
	// Profile is the whole profile the ingredient is, whose runs are the
	// reproduction's own; none for a rule alone.
	Profile sim.TimingModel
	// Edit, for a rule alone, returns the editing loop under it; nil for a
	// whole profile.
	Edit func(sim.Editing) sim.Editing
}

// ingredients returns the timing models an ablation of the published-fit
// profile compares, in order: the default, its pause rule alone, its
// oversleep alone, and both (the profile itself).
func ingredients() []ingredient {
	pause, over, _ := sim.TimingPublishedFit.Rules()
	return []ingredient{
		{Name: "default (pause think, no oversleep)", Profile: sim.TimingDefault},
		{Name: "pause " + pause + " alone", Edit: func(e sim.Editing) sim.Editing { return e.WithRules(pause, sim.Oversleep{}) }},
		{Name: "oversleep " + over.Formula() + " alone", Edit: func(e sim.Editing) sim.Editing { return e.WithRules(sim.PauseThink, over) }},
		{Name: "both: " + sim.TimingPublishedFit.Name(), Profile: sim.TimingPublishedFit},
	}
}
