package plan

import (
	"bytes"
	_ "embed"
)

var (
	//go:embed init.yaml
	initPlan []byte
	//go:embed init-costs.yaml
	initCosts []byte
)

// InitFiles returns the commented example plan and its cost file that
// rightsize study init writes, as study.yaml and costs.yaml.
func InitFiles() (plan, costs []byte) {
	return bytes.Clone(initPlan), bytes.Clone(initCosts)
}
