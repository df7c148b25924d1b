// Package scenario composes measured runs out of driver steps: the
// autopilot (a users sequence, each step with ramp-up and measured duration,
// the whole sequence repeated), with host telemetry and server counters for
// every step.
//
// The package holds one orchestrator per measuring command, each a file
// set named by its prefix (the run set is the base the others build on):
//
//   - run: run.go (RunOptions, the runner: one measured run on a target),
//     record.go (driver figures into store rows), spill.go and diskfull.go
//     (a full store or a lost server), slots.go and workers.go (connection
//     slots, multi-worker runs), caps.go, env.go, prewarm.go, defaults.go
//     (the time-to-answer rules), runlabel.go, and run_json.go (the
//     run --json document, Report).
//   - autopilot: autopilot.go (the users sequence and its repeats),
//     autopilot_answer.go (how a step ends, repeats' agreement),
//     autopilot_waits.go (wait sampling and saturation of a step).
//   - sweep: sweep.go (RunSweep, the SweepKinds registry, SweepPoint),
//     sweep_driver.go (the driver's share), sweep_knee.go (the judged knee),
//     sweep_predict.go (the capacity model's prediction of each value).
//   - fit: fit.go (RunFit, the search on a managed server), fit_criteria.go
//     (--criteria parsing), fit_predict.go (the prediction of candidates).
//   - neighbour: neighbour.go (RunNeighbour, the noisy-neighbour scenario)
//     and copyspace.go (room for the build's copies).
package scenario
