package reproduce

import "github.com/notesbench/notesbench/sim"

// An ingredient is one timing model of the ablation: the default, one of the
// published-fit profile's two rules alone, or both.
type ingredient struct {
	// Name is a short name: "default (pause think, no oversleep)", "pause
	// uniform0 alone", …
	Name string
	// Whole is true when the ingredient is a whole profile, Profile: its
	// runs are that profile's.
	Whole   bool
	Profile sim.TimingModel
	// Edit returns the editing loop under this ingredient.
	Edit func(sim.Editing) sim.Editing
}

// ingredients returns the timing models an ablation of the published-fit
// profile compares, in order: the default, its pause rule alone, its
// oversleep alone, and both (the profile itself).
func ingredients() []ingredient {
	pause, over, _ := sim.TimingPublishedFit.Rules()
	whole := func(name string, p sim.TimingModel) ingredient {
		return ingredient{Name: name, Whole: true, Profile: p, Edit: func(e sim.Editing) sim.Editing { return e.WithTiming(p) }}
	}
	return []ingredient{
		whole("default (pause think, no oversleep)", sim.TimingDefault),
		{Name: "pause " + pause + " alone", Edit: func(e sim.Editing) sim.Editing { return e.WithRules(pause, sim.Oversleep{}) }},
		{Name: "oversleep " + over.Formula() + " alone", Edit: func(e sim.Editing) sim.Editing { return e.WithRules(sim.PauseThink, over) }},
		whole("both: "+sim.TimingPublishedFit.Name(), sim.TimingPublishedFit),
	}
}
