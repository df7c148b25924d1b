package report

import "strings"

// A fit's, a sweep's (or noisy-neighbour scenario's) and a study's report
// is about one question. It opens with the answer: the sections that give
// it (leadingSection: the fit, the sweep, the cost model) come before the
// generic ones; its default title names the fit or sweep; and the labels
// of its runs leave out the label they all start with (a fit's candidates
// are "cpus 0.25, memory 512M", not "fit-20261126-131656-aa4200 cpus 0.25,
// memory 512M").

// leadingSection is a section that answers what its report was made for:
// when shown, it comes before every other section.
type leadingSection interface {
	leads()
}

func (costSection) leads()  {}
func (sweepSection) leads() {}
func (fitSection) leads()   {}

// answerFirst returns sections with the leading ones first; each group
// keeps its order.
func answerFirst(sections []Section) []Section {
	var lead, rest []Section
	for _, s := range sections {
		if _, ok := s.(leadingSection); ok {
			lead = append(lead, s)
		} else {
			rest = append(rest, s)
		}
	}
	return append(lead, rest...)
}

// defaultTitle is the title of a report given none: it names the fit or
// the sweep the report is about.
func defaultTitle(o Options) string {
	switch {
	case o.Fit != nil:
		return "rightsize report: fit " + orID(o.Fit.Label, o.Fit.ID)
	case o.Sweep != nil && o.Sweep.Kind == neighbourKind:
		return "rightsize report: noisy neighbour " + orID(o.Sweep.Label, o.Sweep.ID)
	case o.Sweep != nil:
		return "rightsize report: sweep " + o.Sweep.Kind + " " + orID(o.Sweep.Label, o.Sweep.ID)
	}
	return "rightsize report"
}

// orID is label, or id when there is none.
func orID(label, id string) string {
	if label != "" {
		return label
	}
	return id
}

// subjectLabels returns labels with the fit's or sweep's run label
// (Fit.RunLabel, Sweep.RunLabel) left out where they start with it; a run
// whose shortened label would be empty or another run's keeps its own.
func subjectLabels(labels []string, o Options) []string {
	var prefix string
	switch {
	case o.Fit != nil && o.Fit.RunLabel != "":
		prefix = o.Fit.RunLabel
	case o.Sweep != nil && o.Sweep.RunLabel != "":
		prefix = o.Sweep.RunLabel
	default:
		return labels
	}
	out := make([]string, len(labels))
	count := map[string]int{}
	for i, l := range labels {
		out[i] = l
		if s, ok := strings.CutPrefix(l, prefix+" "); ok && strings.TrimSpace(s) != "" {
			out[i] = strings.TrimSpace(s)
		}
		count[out[i]]++
	}
	for i := range out {
		if count[out[i]] > 1 {
			out[i] = labels[i]
		}
	}
	return out
}
