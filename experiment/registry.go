package experiment

// All returns every experiment, in the order the commands, the help and
// reproduce list them. A new experiment is added here, once.
func All() []Descriptor {
	return []Descriptor{Race, Tabs, Fast, Create, Sources, Refs, Outline, Validate, Bench}
}
