package kubejob

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func base() Options {
	return Options{Name: "tpcc", Image: "ghcr.io/rightsize/rightsize:1.0", Workers: 8, TargetDSN: "postgres://u:p@db/tpcc",
		StoreDSN: "postgres://u:p@store/results", RunID: "tpcc-1", RunArgs: []string{"--users", "64", "--duration", "5m"},
		MaxUsers: 64, MetricsPort: 9464}
}

// decode splits the YAML stream and decodes it strictly (unknown fields
// refused) into the official API types.
func decode(t *testing.T, out string) (*corev1.Secret, *batchv1.Job) {
	t.Helper()
	docs := strings.Split(out, "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("%d YAML documents, want a Secret and a Job:\n%s", len(docs), out)
	}
	var s corev1.Secret
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &s); err != nil {
		t.Fatalf("Secret does not decode strictly: %v\n%s", err, docs[0])
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &j); err != nil {
		t.Fatalf("Job does not decode strictly: %v\n%s", err, docs[1])
	}
	return &s, &j
}

func TestJobDecodesStrictly(t *testing.T) {
	cases := []struct {
		name     string
		edit     func(*Options)
		users    int
		minCPU   int64
		metrics  bool
		thinking bool
	}{
		{"8 workers, 64 users", func(*Options) {}, 8, 280, true, false},
		{"3 workers round up", func(o *Options) { o.Workers, o.MaxUsers = 3, 10 }, 4, 140, true, false},
		{"keying and thinking", func(o *Options) { o.KeyingThinking, o.MaxUsers = true, 8000 }, 1000, minCPUMilli, true, true},
		{"no metrics port", func(o *Options) { o.MetricsPort = 0 }, 8, 280, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			c.edit(&o)
			secret, job, err := Build(o)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, secret, job); err != nil {
				t.Fatal(err)
			}
			s, j := decode(t, buf.String())
			if s.Kind != "Secret" || s.StringData[keyTarget] != o.TargetDSN || s.StringData[keyStore] != o.StoreDSN {
				t.Errorf("secret %+v, want both DSNs", s)
			}
			if strings.Contains(strings.Split(buf.String(), "\n---\n")[1], "u:p@") {
				t.Errorf("a DSN appears in the Job, want it only in the Secret")
			}
			spec := j.Spec
			if j.Kind != "Job" || *spec.CompletionMode != batchv1.IndexedCompletion || *spec.Completions != int32(o.Workers) || *spec.Parallelism != int32(o.Workers) {
				t.Errorf("job %s: completion mode %v, completions %d, parallelism %d; want Indexed, %d, %d",
					j.Kind, *spec.CompletionMode, *spec.Completions, *spec.Parallelism, o.Workers, o.Workers)
			}
			pod := spec.Template.Spec
			if len(pod.InitContainers) != 1 || pod.InitContainers[0].Args[1] != "store-check" {
				t.Errorf("init containers %+v, want the store check", pod.InitContainers)
			}
			w := pod.Containers[0]
			args := strings.Join(w.Args, " ")
			for _, want := range []string{"--workers " + strconv.Itoa(o.Workers), "--run-id tpcc-1", "$(RIGHTSIZE_TARGET)", "--users 64"} {
				if !strings.Contains(args, want) {
					t.Errorf("worker args %q lack %q", args, want)
				}
			}
			if strings.Contains(args, "--metrics-addr") != c.metrics || (len(w.Ports) == 1) != c.metrics {
				t.Errorf("metrics args %q ports %v, want metrics: %v", args, w.Ports, c.metrics)
			}
			for _, e := range w.Env {
				if e.Name == "RIGHTSIZE_HOST" {
					if e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != "metadata.name" {
						t.Errorf("env RIGHTSIZE_HOST %+v, want the pod's name", e)
					}
					continue
				}
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != s.Name {
					t.Errorf("env %s not from the Secret %s", e.Name, s.Name)
				}
			}
			size := Size(o)
			if size.UsersPerWorker != c.users || w.Resources.Requests.Cpu().MilliValue() < c.minCPU {
				t.Errorf("users per worker %d, CPU request %s; want %d users, at least %dm", size.UsersPerWorker, w.Resources.Requests.Cpu(), c.users, c.minCPU)
			}
			wantMem := int64(64<<20) + int64(c.users)*(memPerUser+memPerConnection)
			if got := w.Resources.Requests.Memory().Value(); got != wantMem {
				t.Errorf("memory request %d, want %d", got, wantMem)
			}
		})
	}
}

// TestSizePerConnection checks the memory request: 64 MiB, ~6 KiB per
// user and 73 KiB per connection, the users' (their own or the ones they
// share) and, with deferred Delivery, one delivery worker's per 10 of the
// pod's warehouses; for the largest share of a pod.
func TestSizePerConnection(t *testing.T) {
	const user, conn = 6 << 20 / 1000, 73 << 10
	for _, c := range []struct {
		name                   string
		edit                   func(*Options)
		users, conns, delivery int
	}{
		{"one connection per user", func(o *Options) { o.Workers, o.MaxUsers = 2, 100 }, 50, 50, 0},
		{"shared connections", func(o *Options) { o.Workers, o.MaxUsers, o.Connections = 3, 100, 10 }, 34, 4, 0},
		{"more connections than users", func(o *Options) { o.Workers, o.MaxUsers, o.Connections = 2, 10, 40 }, 5, 5, 0},
		{"deferred, 100 warehouses", func(o *Options) { o.Workers, o.MaxUsers, o.DeferredDelivery, o.Warehouses = 4, 100, true, 100 }, 25, 25, 3},
		{"deferred, 1000 warehouses", func(o *Options) { o.Workers, o.MaxUsers, o.DeferredDelivery, o.Warehouses = 4, 100, true, 1000 }, 25, 25, 25},
		{"deferred, fewer warehouses than pods", func(o *Options) { o.Workers, o.MaxUsers, o.DeferredDelivery, o.Warehouses = 4, 100, true, 2 }, 25, 25, 1},
		{"deferred with shared connections", func(o *Options) {
			o.Workers, o.MaxUsers, o.Connections, o.DeferredDelivery, o.Warehouses = 2, 1000, 100, true, 100
		}, 500, 50, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			c.edit(&o)
			got := Size(o)
			want := Resources{UsersPerWorker: c.users, ConnectionsPerWorker: c.conns + c.delivery, DeliveryWorkers: c.delivery,
				MemoryBytes: 64<<20 + int64(c.users)*user + int64(c.conns+c.delivery)*conn, CPUMilli: got.CPUMilli}
			if got != want {
				t.Errorf("Size = %+v, want %+v", got, want)
			}
			if !o.DeferredDelivery {
				return
			}
			interactive := o
			interactive.DeferredDelivery = false
			if grown := got.MemoryBytes - Size(interactive).MemoryBytes; grown != int64(c.delivery)*conn {
				t.Errorf("deferred Delivery adds %d bytes, want %d delivery workers × 73 KiB", grown, c.delivery)
			}
		})
	}
}

func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionsMode: Indexed\n"), &j); err == nil {
		t.Fatal("a misspelt field decoded, want strict decoding to refuse it")
	}
}

func TestBadOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no workers", func(o *Options) { o.Workers = 0 }, "--workers"},
		{"no store", func(o *Options) { o.StoreDSN = "" }, "--store"},
		{"no run id", func(o *Options) { o.RunID = "" }, "--run-id"},
		{"deferred without warehouses", func(o *Options) { o.DeferredDelivery = true }, "--warehouses"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := base()
			c.edit(&o)
			if _, _, err := Build(o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Build: %v, want an error naming %s", err, c.want)
			}
		})
	}
}

// TestHostNetwork checks --host-network: the pods on the node's network,
// tolerating the taints of a node with no network plugin; without it, the
// pod network and no tolerations. Both pull the image only if absent (a
// locally imported image, tag latest included) and run non-root.
func TestHostNetwork(t *testing.T) {
	for _, host := range []bool{false, true} {
		o := base()
		o.HostNetwork = host
		_, job, err := Build(o)
		if err != nil {
			t.Fatal(err)
		}
		pod := job.Spec.Template.Spec
		tolerated := map[string]bool{}
		for _, tol := range pod.Tolerations {
			tolerated[tol.Key+":"+string(tol.Effect)] = tol.Operator == corev1.TolerationOpExists && tol.TolerationSeconds == nil
		}
		want := host && tolerated["node.kubernetes.io/not-ready:NoSchedule"] && tolerated["node.kubernetes.io/not-ready:NoExecute"]
		if pod.HostNetwork != host || want != host || (!host && len(pod.Tolerations) > 0) {
			t.Errorf("host network %v: pod hostNetwork %v, tolerations %+v", host, pod.HostNetwork, pod.Tolerations)
		}
		for _, c := range append(pod.InitContainers, pod.Containers...) {
			if c.ImagePullPolicy != corev1.PullIfNotPresent || !*c.SecurityContext.ReadOnlyRootFilesystem || !*c.SecurityContext.RunAsNonRoot {
				t.Errorf("container %s: pull policy %s, security %+v", c.Name, c.ImagePullPolicy, c.SecurityContext)
			}
		}
		if *pod.AutomountServiceAccountToken || !*pod.SecurityContext.RunAsNonRoot {
			t.Errorf("pod mounts a service account token or may run as root")
		}
	}
}

// TestScriptsConfigMap: a workload's script files go into a ConfigMap the
// worker container mounts read-only at ScriptDir; none, no ConfigMap and
// no volume; scripts over a ConfigMap's 1 MiB are refused.
func TestScriptsConfigMap(t *testing.T) {
	o := base()
	if cm := Scripts(o); cm != nil {
		t.Errorf("a ConfigMap without scripts: %+v", cm)
	}
	if _, job, err := Build(o); err != nil || len(job.Spec.Template.Spec.Volumes) != 0 {
		t.Fatalf("volumes without scripts: %+v, %v", job.Spec.Template.Spec.Volumes, err)
	}
	o.Scripts = map[string]string{"a.sql": "SELECT 1;\n", "b.sql": "\\set x 1\nSELECT :x;\n"}
	_, job, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, Scripts(o)); err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(buf.Bytes(), &cm); err != nil || cm.Name != "tpcc-scripts" || cm.Data["b.sql"] != o.Scripts["b.sql"] {
		t.Fatalf("ConfigMap %+v, %v", cm, err)
	}
	spec := job.Spec.Template.Spec
	c := spec.Containers[0]
	if len(spec.Volumes) != 1 || spec.Volumes[0].ConfigMap.Name != cm.Name || len(c.VolumeMounts) != 1 ||
		c.VolumeMounts[0].Name != spec.Volumes[0].Name || c.VolumeMounts[0].MountPath != ScriptDir || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("volumes %+v, mounts %+v; want the ConfigMap read-only at %s", spec.Volumes, c.VolumeMounts, ScriptDir)
	}
	o.Scripts = map[string]string{"big.sql": strings.Repeat("SELECT 1;\n", 110_000)}
	if _, _, err := Build(o); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("1.1 MB of scripts: %v, want refused", err)
	}
}

// A pgbench workload's worker is sized per SQL statement (2,500 a second
// per user at 20 µs: 50 millicores a user), TPC-C's per transaction (500
// a second at 70 µs: 35).
func TestSizeCPUByWorkload(t *testing.T) {
	o := base()
	o.Workers, o.MaxUsers = 2, 64
	if got := Size(o).CPUMilli; got != 32*35 {
		t.Errorf("TPC-C, 32 users a worker: %d millicores, want %d", got, 32*35)
	}
	o.Workload = true
	if got := Size(o).CPUMilli; got != 32*50 {
		t.Errorf("pgbench workload, 32 users a worker: %d millicores, want %d", got, 32*50)
	}
}
