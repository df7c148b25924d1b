package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func TestK8sJob(t *testing.T) {
	out, errOut, code := cli(t, context.Background(), "k8s", "job", "--workers", "3", "--target", "postgres://u:p@db/tpcc",
		"--store", "postgres://u:p@results/rs", "--users", "30", "--duration", "5m", "--label", "three", "--run-id", "three-1")
	if code != 0 {
		t.Fatalf("k8s job: exit %d\n%s", code, errOut)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("want a Secret and a Job, got:\n%s", out)
	}
	var s corev1.Secret
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &s); err != nil {
		t.Fatalf("Secret: %v", err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &j); err != nil {
		t.Fatalf("Job: %v", err)
	}
	args := j.Spec.Template.Spec.Containers[0].Args
	joined := strings.Join(args, " ")
	for _, want := range []string{"--users=30", "--duration=5m0s", "--label=three", "--run-id three-1", "--workers 3", "--worker-wait=1m0s"} {
		if !strings.Contains(joined, want) {
			t.Errorf("worker args %q lack %q", joined, want)
		}
	}
	// The workers' arguments are ones run accepts, and name the worker count.
	root := newRootCmd()
	run, rest, err := root.Find(args)
	if err != nil || run.Name() != "run" {
		t.Fatalf("the worker's command %q: %v", args[0], err)
	}
	if err := run.ParseFlags(rest); err != nil {
		t.Errorf("run refuses the job's arguments %q: %v", joined, err)
	} else if n, _ := run.Flags().GetInt("workers"); n != 3 {
		t.Errorf("run --workers parsed as %d, want 3", n)
	}
	check := newRootCmd()
	if _, _, err := check.Find(j.Spec.Template.Spec.InitContainers[0].Args); err != nil {
		t.Errorf("the init container's command does not exist: %v", err)
	}
}

func TestK8sJobBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"sqlite store", []string{"--workers", "2", "--target", "postgres://db/t", "--store", "x.db"}, "shared PostgreSQL results store"},
		{"embedded target", []string{"--workers", "2", "--target", "embedded", "--store", "postgres://s/r"}, "database server they all reach"},
		{"no workers", []string{"--target", "postgres://db/t", "--store", "postgres://s/r"}, "--workers must be"},
		{"bad users", []string{"--workers", "2", "--target", "postgres://db/t", "--store", "postgres://s/r", "--users", "x"}, "--users"},
		{"deferred without warehouses", []string{"--workers", "2", "--target", "postgres://db/t", "--store", "postgres://s/r", "--delivery", "deferred"}, "--warehouses N"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := cli(t, context.Background(), append([]string{"k8s", "job"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming %q", code, errOut, c.want)
			}
		})
	}
}

// The pods' memory request counts the connections the run flags give: the
// shared --connections and, with --delivery deferred, the delivery
// workers of the pod's --warehouses.
func TestK8sJobSizesConnections(t *testing.T) {
	for _, c := range []struct {
		name         string
		args         []string
		users, conns int
	}{
		{"one per user", nil, 50, 50},
		{"deferred delivery", []string{"--delivery", "deferred", "--warehouses", "100"}, 50, 55},
		{"shared connections and deferred delivery", []string{"--connections", "20", "--delivery", "deferred", "--warehouses", "100"}, 50, 15},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"k8s", "job", "--workers", "2", "--target", "postgres://u@db/tpcc", "--store", "postgres://u@results/rs",
				"--users", "100"}, c.args...)
			out, errOut, code := cli(t, context.Background(), args...)
			if code != 0 {
				t.Fatalf("k8s job: exit %d\n%s", code, errOut)
			}
			var j batchv1.Job
			if err := yaml.UnmarshalStrict([]byte(strings.Split(out, "\n---\n")[1]), &j); err != nil {
				t.Fatalf("Job: %v", err)
			}
			w := j.Spec.Template.Spec.Containers[0]
			want := int64(64<<20) + int64(c.users)*(6<<20/1000) + int64(c.conns)*(73<<10)
			if got := w.Resources.Requests.Memory().Value(); got != want {
				t.Errorf("memory request %d, want %d (%d users, %d connections)", got, want, c.users, c.conns)
			}
			joined := strings.Join(w.Args, " ")
			for i := 0; i+1 < len(c.args); i += 2 {
				if flag := c.args[i] + "=" + c.args[i+1]; !strings.Contains(joined, flag) {
					t.Errorf("worker args %q lack %q", joined, flag)
				}
			}
		})
	}
}

// TestK8sJobWorkload: k8s job with a pgbench workload of a built-in and a
// script file prints a Secret, a ConfigMap holding the file, and a Job
// whose pods mount it read-only and run --workload with the file's path
// there (weights, --define, --random-seed, --scale and --figure passed
// on, one argument per repeated flag), arguments run accepts.
func TestK8sJobWorkload(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.sql")
	src := "\\set aid random(1, 100000 * :scale)\nSELECT abalance FROM pgbench_accounts WHERE aid = :aid;\n"
	write(t, a, src)
	out, errOut, code := cli(t, context.Background(), "k8s", "job", "--workers", "2", "--target", "postgres://u:p@db/bench",
		"--store", "postgres://u:p@results/rs", "--users", "8", "--duration", "1m", "--run-id", "wl-1", "--name", "wl",
		"--workload", "tpcb@3", "--workload", a+"@1", "--define", "x=5", "--define", "y=6", "--random-seed", "7", "--scale", "2", "--figure", "a")
	if code != 0 {
		t.Fatalf("k8s job --workload: exit %d\n%s", code, errOut)
	}
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("want a Secret, a ConfigMap and a Job, got:\n%s", out)
	}
	var cm corev1.ConfigMap
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &cm); err != nil || cm.Kind != "ConfigMap" {
		t.Fatalf("ConfigMap: %v\n%s", err, docs[1])
	}
	if err := yaml.UnmarshalStrict([]byte(docs[2]), &j); err != nil {
		t.Fatalf("Job: %v", err)
	}
	if cm.Name != "wl-scripts" || len(cm.Data) != 1 || cm.Data["a.sql"] != src {
		t.Errorf("ConfigMap %s holds %q, want wl-scripts with a.sql as written", cm.Name, cm.Data)
	}
	spec := j.Spec.Template.Spec
	if len(spec.Volumes) != 1 || spec.Volumes[0].ConfigMap == nil || spec.Volumes[0].ConfigMap.Name != "wl-scripts" {
		t.Fatalf("the pods' volumes %+v do not hold the ConfigMap wl-scripts", spec.Volumes)
	}
	if m := spec.Containers[0].VolumeMounts; len(m) != 1 || m[0].MountPath != "/etc/rightsize/scripts" || !m[0].ReadOnly {
		t.Errorf("the worker's mounts %+v, want the scripts read-only at /etc/rightsize/scripts", m)
	}
	args := spec.Containers[0].Args
	run, rest, err := newRootCmd().Find(args)
	if err != nil || run.Name() != "run" {
		t.Fatalf("the worker's command %q: %v", args, err)
	}
	if err := run.ParseFlags(rest); err != nil {
		t.Fatalf("run refuses the job's arguments %q: %v", args, err)
	}
	for flag, want := range map[string]string{"workload": "tpcb@3 /etc/rightsize/scripts/a.sql@1", "define": "x=5 y=6"} {
		if got, _ := run.Flags().GetStringArray(flag); strings.Join(got, " ") != want {
			t.Errorf("the worker's --%s %q, want %q", flag, got, want)
		}
	}
	for flag, want := range map[string]string{"random-seed": "7", "scale": "2", "figure": "a"} {
		if got := run.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("the worker's --%s %q, want %q", flag, got, want)
		}
	}
	// built-ins only: no ConfigMap
	out, errOut, code = cli(t, context.Background(), "k8s", "job", "--workers", "2", "--target", "postgres://u:p@db/bench",
		"--store", "postgres://u:p@results/rs", "--users", "8", "--workload", "tpcb")
	if code != 0 || strings.Count(out, "\n---\n") != 1 || strings.Contains(out, "ConfigMap") {
		t.Errorf("k8s job --workload tpcb: exit %d, want a Secret and a Job only\n%s%s", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.sql")
	write(t, bad, "SELECT 1;\n\\set x 1 +\n")
	if _, errOut, code = cli(t, context.Background(), "k8s", "job", "--workers", "2", "--target", "postgres://u:p@db/bench",
		"--store", "postgres://u:p@results/rs", "--workload", bad); code != 2 || !strings.Contains(errOut, bad+":2:11: ") {
		t.Errorf("k8s job with a bad script: exit %d, %q; want 2 naming %s:2:11", code, errOut, bad)
	}
}
