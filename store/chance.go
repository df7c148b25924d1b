package store

// Chance is one violated share of a validity verdict set against its
// sampling spread: the counts a correct driver produces by chance alone
// at the step's counts (package validity says how).
type Chance struct {
	// Rule names the share: "rollbacks", "remote_order_lines",
	// "remote_payments" or "mix_<type>".
	Rule string `json:"rule"`
	// Count of Of is the observed count (Count/Of is the share).
	Count int64 `json:"count"`
	Of    int64 `json:"of"`
	// ExpectedPct is the share a correct driver deals on average, and
	// Expected the count it means at Of.
	ExpectedPct float64 `json:"expected_pct"`
	Expected    float64 `json:"expected"`
	// Low and High bound the counts a correct driver shows by chance at
	// Level (0.99), from Model ("binomial" or "deck").
	Low   int64   `json:"low"`
	High  int64   `json:"high"`
	Level float64 `json:"level"`
	Model string  `json:"model"`
	// Within is true when Count lies in Low-High: a longer interval
	// settles it; false means the driver or the database is wrong.
	Within bool `json:"within_chance"`
}
