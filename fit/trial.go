package fit

// Measured reports whether the trial was measured (it meets or misses the
// target): the report shows its figures.
func (t Trial) Measured() bool { return t.measured() }
