package scenario

// RunLabel is what the labels of a sweep's, fit's or noisy-neighbour
// scenario's runs start with: its label, or its kind and id ("sweep-ID",
// "fit-ID", "neighbour-ID"). The run of a value or candidate adds it
// ("LABEL cpus=1", "LABEL cpus 1, memory 512M"); the scenario's report
// leaves it out.
func RunLabel(kind, id, label string) string {
	if label != "" {
		return label
	}
	switch kind {
	case FitKind, NeighbourKind:
		return kind + "-" + id
	}
	return "sweep-" + id
}
