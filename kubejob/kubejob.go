// Package kubejob builds the Kubernetes objects that run rightsize as N
// workers (rightsize k8s job): an Indexed Job whose completion index is the
// worker number, the Secret holding the target and results-store DSNs, and,
// for a workload of pgbench script files, the ConfigMap holding them.
// Users apply them with kubectl; the workers meet in the shared PostgreSQL
// results store (see the worker package), not through Kubernetes.
package kubejob

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/rightsize/rightsize/driver"
)

// Options describe the job.
type Options struct {
	Name      string // Job name; the Secret is Name + "-dsn"
	Namespace string // "" leaves it to kubectl
	Image     string
	Workers   int
	// TargetDSN and StoreDSN go into the Secret, never into the Job.
	TargetDSN, StoreDSN string
	// RunID is the run every worker stores under.
	RunID string
	// RunArgs are the run flags passed on to every worker (besides
	// --target, --store, --workers, --run-id and --metrics-addr).
	RunArgs []string
	// MaxUsers is the largest step's users over all workers;
	// KeyingThinking is whether users wait the spec's keying and think
	// times; Connections is how many connections a step's users share over
	// all workers (run --connections; 0: one per user); DeferredDelivery
	// and Warehouses (the schema's) give each worker's delivery workers.
	// They size the resource requests (see Size).
	MaxUsers         int
	KeyingThinking   bool
	Connections      int
	DeferredDelivery bool
	Warehouses       int
	// MetricsPort serves run --metrics-addr in each pod (0: none).
	MetricsPort int
	// HostNetwork runs the pods in their node's network namespace, with
	// the tolerations a node without a network plugin needs (it stays
	// NotReady: no CNI): for clusters with no pod network, such as the
	// single-node test cluster of test/k8s. The metrics port is then a port
	// of the node, so the scheduler places one pod per node.
	HostNetwork bool
	// Workload tells the workers run a pgbench workload (--workload other
	// than tpcc): their CPU is sized per SQL statement, not per TPC-C
	// transaction (see Size).
	Workload bool
	// Scripts are the pgbench script files of --workload by the name the
	// pods read them under (ScriptDir/NAME, which RunArgs' --workload
	// give): they travel in a ConfigMap (Name + "-scripts", Scripts'
	// one object) mounted read-only at ScriptDir. None: no ConfigMap.
	Scripts map[string]string
}

// ScriptDir is where the pods read the workload's script files.
const ScriptDir = "/etc/rightsize/scripts"

// maxScripts bounds the scripts' bytes: a ConfigMap holds at most 1 MiB.
const maxScripts = 1000 << 10

// Measured per-worker costs the requests are sized from (README,
// "Benchmarks"; ARCHITECTURE.md, "Driver CPU"):
const (
	// baseMemory covers the Go runtime, the store client and telemetry.
	baseMemory = 64 << 20
	// memPerUser is ~6 MiB per 1,000 virtual users without their
	// connections (-bench UsersMemory ./driver).
	memPerUser = 6 << 20 / 1000
	// memPerConnection is the upper end of the 35-73 KiB a connection
	// costs on the client (-bench ConnectionMemory ./engine/postgres): the
	// users' (or the ones they share) and the delivery workers'.
	memPerConnection = 73 << 10
	// cpuPerTxn is the upper end of the measured 35-70 µs of driver CPU per
	// transaction (PostgreSQL procedures to statements mode).
	cpuPerTxn = 70e-6
	// txnPerUserSecond is what one user without keying and think times
	// completes when the server answers in about 2 ms; with them a user
	// completes one transaction every ~20 s (TPC-C 5.2.5.7 means).
	txnPerUserSecond         = 500.0
	txnPerUserSecondThinking = 0.05
	minCPUMilli              = 100
	// cpuPerStatement is the upper end of the driver CPU a pgbench
	// script's SQL command costs (select-only: 16.8 µs for its one
	// command; tpcb-like: 137.5 µs for its seven, 19.6 each; issue 47's
	// interleaved measurement) and statementsPerUserSecond what one user
	// sends back to back when a command's round trip takes 0.4 ms: a
	// pgbench workload's user costs about 50 millicores whatever its
	// scripts' length, where TPC-C's costs 35.
	cpuPerStatement         = 20e-6
	statementsPerUserSecond = 2500.0
)

// Resources are one worker's requests: for its users, the connections
// they hold and its delivery workers' connections.
type Resources struct {
	UsersPerWorker       int
	ConnectionsPerWorker int // the users' connections and the delivery workers'
	DeliveryWorkers      int // of the connections, the delivery workers'
	MemoryBytes          int64
	CPUMilli             int64
}

// Size returns one worker's requests for o, for the largest share any
// worker gets (rounded up) as run --workers splits a run: of the largest
// step's users and of their shared connections, and, with deferred
// Delivery, of the warehouses, one delivery worker on a connection of its
// own per 10 (driver.DeliveryWorkers). Memory is the base plus the
// measured cost per user and per connection; CPU the measured cost per
// transaction (per SQL statement for a pgbench workload).
func Size(o Options) Resources {
	n := max(o.Workers, 1)
	users := ceilDiv(o.MaxUsers, n)
	conns := users
	if o.Connections > 0 {
		conns = driver.Connections(users, max(ceilDiv(o.Connections, n), 1))
	}
	delivery := 0
	if o.DeferredDelivery {
		delivery = driver.DeliveryWorkers(ceilDiv(o.Warehouses, n))
	}
	rate := txnPerUserSecond
	if o.KeyingThinking {
		rate = txnPerUserSecondThinking
	}
	perUser := rate * cpuPerTxn // CPU seconds a second
	if o.Workload {
		perUser = statementsPerUserSecond * cpuPerStatement
	}
	cpu := int64(math.Ceil(float64(users) * perUser * 1000))
	mem := baseMemory + int64(users)*memPerUser + int64(conns+delivery)*memPerConnection
	return Resources{UsersPerWorker: users, ConnectionsPerWorker: conns + delivery, DeliveryWorkers: delivery,
		MemoryBytes: mem, CPUMilli: max(cpu, minCPUMilli)}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Workers < 1 || o.Workers > 10000:
		return fmt.Errorf("--workers must be 1..10000 (got %d)", o.Workers)
	case o.Name == "":
		return fmt.Errorf("--name must not be empty")
	case o.Image == "":
		return fmt.Errorf("--image must not be empty")
	case o.TargetDSN == "" || o.StoreDSN == "":
		return fmt.Errorf("give both --target and --store (postgres://...): the workers read them from the Secret")
	case o.RunID == "":
		return fmt.Errorf("--run-id must not be empty")
	case scriptBytes(o.Scripts) > maxScripts:
		return fmt.Errorf("the --workload scripts hold %d bytes, more than the %d a ConfigMap takes: shorten them", scriptBytes(o.Scripts), maxScripts)
	case o.DeferredDelivery && o.Warehouses < 1:
		return fmt.Errorf("--delivery deferred: give --warehouses N, the schema's warehouse count: each pod runs a delivery worker on a connection of its own per 10 of its warehouses, and its memory request counts them (the workers check the schema has N)")
	}
	return nil
}

const (
	keyTarget = "target"
	keyStore  = "store"
)

// Build returns the Secret and the Indexed Job for o.
func Build(o Options) (*corev1.Secret, *batchv1.Job, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	labels := map[string]string{"app.kubernetes.io/name": "rightsize", "app.kubernetes.io/instance": o.Name}
	secretName := o.Name + "-dsn"
	secret := &corev1.Secret{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: o.Namespace, Labels: labels},
		Type:       corev1.SecretTypeOpaque,
		StringData: map[string]string{keyTarget: o.TargetDSN, keyStore: o.StoreDSN},
	}
	env := []corev1.EnvVar{secretEnv("RIGHTSIZE_TARGET", secretName, keyTarget), secretEnv("RIGHTSIZE_STORE", secretName, keyStore),
		// the host name the worker records: the pod's (on the host
		// network every pod of a node has the node's)
		{Name: "RIGHTSIZE_HOST", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	args := []string{"run", "--target", "$(RIGHTSIZE_TARGET)", "--store", "$(RIGHTSIZE_STORE)",
		"--workers", strconv.Itoa(o.Workers), "--run-id", o.RunID}
	var ports []corev1.ContainerPort
	annotations := map[string]string{}
	if o.MetricsPort > 0 {
		args = append(args, "--metrics-addr", ":"+strconv.Itoa(o.MetricsPort))
		ports = []corev1.ContainerPort{{Name: "metrics", ContainerPort: int32(o.MetricsPort), Protocol: corev1.ProtocolTCP}}
		annotations["prometheus.io/scrape"] = "true"
		annotations["prometheus.io/port"] = strconv.Itoa(o.MetricsPort)
	}
	args = append(args, o.RunArgs...)
	size := Size(o)
	annotations["rightsize.dev/users-per-worker"] = strconv.Itoa(size.UsersPerWorker)
	annotations["rightsize.dev/connections-per-worker"] = strconv.Itoa(size.ConnectionsPerWorker)
	requests := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewMilliQuantity(size.CPUMilli, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(size.MemoryBytes, resource.BinarySI),
	}
	limits := corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(2*size.MemoryBytes, resource.BinarySI)}
	n := int32(o.Workers)
	noRetry := int32(0) // a dead worker is recorded as lost, not restarted into a running run
	indexed := batchv1.IndexedCompletion
	security := &corev1.SecurityContext{
		RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)), AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem: ptr(true), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          &n,
			Parallelism:          &n,
			BackoffLimitPerIndex: &noRetry,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: annotations},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// the workers call no Kubernetes API and no Service
					AutomountServiceAccountToken: ptr(false),
					EnableServiceLinks:           ptr(false),
					SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr(true), RunAsUser: ptr(int64(65532)),
						RunAsGroup: ptr(int64(65532)), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
					InitContainers: []corev1.Container{{
						Name: "store-reachable", Image: o.Image, Args: []string{"k8s", "store-check", "--store", "$(RIGHTSIZE_STORE)"},
						Env: env[1:2], SecurityContext: security, ImagePullPolicy: corev1.PullIfNotPresent,
					}},
					Containers: []corev1.Container{{
						Name: "worker", Image: o.Image, Args: args, Env: env, Ports: ports, SecurityContext: security,
						ImagePullPolicy: corev1.PullIfNotPresent,
						Resources:       corev1.ResourceRequirements{Requests: requests, Limits: limits},
					}},
				},
			},
		},
	}
	if o.HostNetwork {
		hostNetwork(&job.Spec.Template.Spec)
	}
	if len(o.Scripts) > 0 {
		mountScripts(&job.Spec.Template.Spec, o.Name+"-scripts")
	}
	return secret, job, nil
}

// Scripts returns the ConfigMap of o's scripts (nil when it has none):
// apply it with the Job, whose pods mount it at ScriptDir.
func Scripts(o Options) *corev1.ConfigMap {
	if len(o.Scripts) == 0 {
		return nil
	}
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-scripts", Namespace: o.Namespace,
			Labels: map[string]string{"app.kubernetes.io/name": "rightsize", "app.kubernetes.io/instance": o.Name}},
		Data: o.Scripts,
	}
}

// mountScripts mounts ConfigMap name read-only at ScriptDir in the
// worker container.
func mountScripts(spec *corev1.PodSpec, name string) {
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "scripts", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}})
	c := &spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "scripts", MountPath: ScriptDir, ReadOnly: true})
}

func scriptBytes(scripts map[string]string) int {
	n := 0
	for k, v := range scripts {
		n += len(k) + len(v)
	}
	return n
}

// hostNetwork puts the pods on their node's network and lets them run on
// a node that has no network plugin: such a node is NotReady and tainted
// not-ready (NoSchedule, and NoExecute after the 300 s the default
// tolerations allow) and, on some clouds, network-unavailable.
func hostNetwork(spec *corev1.PodSpec) {
	spec.HostNetwork = true
	spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	for _, key := range []string{"node.kubernetes.io/not-ready", "node.kubernetes.io/network-unavailable"} {
		for _, effect := range []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute} {
			spec.Tolerations = append(spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
		}
	}
}

func secretEnv(name, secret, key string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: secret}, Key: key}}}
}

func ptr[T any](v T) *T { return &v }

// Write prints the objects as one YAML stream (documents separated by ---).
func Write(w io.Writer, objects ...any) error {
	var buf bytes.Buffer
	for i, obj := range objects {
		b, err := yaml.Marshal(obj)
		if err != nil {
			return fmt.Errorf("encode object %d: %w", i+1, err)
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(b)
	}
	_, err := w.Write(buf.Bytes())
	return err
}
