package analysis

import "encoding/json"

// A step figure has one JSON shape in every document: "tpm" is a number
// in a stored step (store.Step), in run --json and here. A figure across
// repeats (a Stat) is written as its mean under the figure's name, with
// its spread beside it under the name's _min, _max and _cv, as run --json
// writes it.

// aggregateJSON is the JSON shape of a StepAggregate: its own fields with
// TPM, NOPM and TPMPerUser as numbers, their spread beside them.
type aggregateJSON struct {
	plainAggregate
	TPM           float64 `json:"tpm"`
	TPMMin        float64 `json:"tpm_min"`
	TPMMax        float64 `json:"tpm_max"`
	TPMCV         float64 `json:"tpm_cv"`
	NOPM          float64 `json:"nopm"`
	NOPMMin       float64 `json:"nopm_min"`
	NOPMMax       float64 `json:"nopm_max"`
	NOPMCV        float64 `json:"nopm_cv"`
	TPMPerUser    float64 `json:"tpm_per_user"`
	TPMPerUserMin float64 `json:"tpm_per_user_min"`
	TPMPerUserMax float64 `json:"tpm_per_user_max"`
	TPMPerUserCV  float64 `json:"tpm_per_user_cv"`
}

// plainAggregate is StepAggregate without its JSON methods.
type plainAggregate StepAggregate

// MarshalJSON writes a's figures across repeats as numbers (their means)
// with their spread beside them (tpm, tpm_min, tpm_max, tpm_cv).
func (a StepAggregate) MarshalJSON() ([]byte, error) {
	j := aggregateJSON{plainAggregate: plainAggregate(a)}
	j.TPM, j.TPMMin, j.TPMMax, j.TPMCV = a.TPM.Mean, a.TPM.Min, a.TPM.Max, a.TPM.CV
	j.NOPM, j.NOPMMin, j.NOPMMax, j.NOPMCV = a.NOPM.Mean, a.NOPM.Min, a.NOPM.Max, a.NOPM.CV
	j.TPMPerUser, j.TPMPerUserMin, j.TPMPerUserMax, j.TPMPerUserCV = a.TPMPerUser.Mean, a.TPMPerUser.Min, a.TPMPerUser.Max, a.TPMPerUser.CV
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *StepAggregate) UnmarshalJSON(b []byte) error {
	var j aggregateJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*a = StepAggregate(j.plainAggregate)
	a.TPM = Stat{Mean: j.TPM, Min: j.TPMMin, Max: j.TPMMax, CV: j.TPMCV}
	a.NOPM = Stat{Mean: j.NOPM, Min: j.NOPMMin, Max: j.NOPMMax, CV: j.NOPMCV}
	a.TPMPerUser = Stat{Mean: j.TPMPerUser, Min: j.TPMPerUserMin, Max: j.TPMPerUserMax, CV: j.TPMPerUserCV}
	return nil
}
