package scenario

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/rightsize/rightsize/engine"
	"github.com/rightsize/rightsize/store"
)

// Environment captures what a run's numbers depend on: the engine's version
// and settings, the host's CPU, memory and OS, and rightsize's own version.
// Keys are flat so runs can be compared key by key.
func Environment(ctx context.Context, db engine.DB, version, commit string) map[string]string {
	env := map[string]string{
		"rightsize.version": version,
		"go.version":        runtime.Version(),
		"host.os":           runtime.GOOS + "/" + runtime.GOARCH,
		"host.logical_cpus": fmt.Sprint(runtime.NumCPU()),
	}
	if commit == "" {
		commit = vcsRevision()
	}
	if commit != "" {
		env["rightsize.commit"] = commit
	}
	if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
		env["host.cpu_model"] = infos[0].ModelName
		if infos[0].Mhz > 0 {
			env["host.cpu_mhz"] = fmt.Sprintf("%.0f", infos[0].Mhz)
		}
	}
	if n, err := cpu.CountsWithContext(ctx, false); err == nil && n > 0 {
		env["host.physical_cores"] = fmt.Sprint(n)
	}
	if vm, err := mem.VirtualMemoryWithContext(ctx); err == nil {
		env["host.memory_bytes"] = fmt.Sprint(vm.Total)
	}
	if hi, err := host.InfoWithContext(ctx); err == nil {
		env["host.name"] = hi.Hostname
		env["host.platform"] = hi.Platform + " " + hi.PlatformVersion
		env["host.kernel"] = hi.KernelVersion
		if hi.VirtualizationSystem != "" {
			env["host.virtualization"] = hi.VirtualizationSystem + "/" + hi.VirtualizationRole
		}
	}
	if db != nil {
		env["engine"] = db.Engine()
		if !db.Caps().Server {
			env[store.EnvEngineInProcess] = "true"
		}
		if v, err := db.Version(ctx); err == nil {
			env["engine.version"] = v
		}
		if s, err := db.Settings(ctx); err == nil {
			for k, v := range s {
				env["setting."+k] = v
			}
		}
	}
	return env
}

// vcsRevision is the commit Go stamped into the binary, or the module
// version of a `go install`ed one ("" when neither is known).
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return s.Value
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	return ""
}
