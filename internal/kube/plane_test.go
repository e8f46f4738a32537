package kube

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/odek-run/odek/internal/kube/kubetest"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m, kubetest.Options{})) }

// podChild stands in for odek in the pod: it checks it has its task and
// its key where odek-kube mounted them, and prints a result.
const podChild = `#!/bin/sh
grep -q '"artifact_root":"/odek/artifacts"' /odek/task/task.json || { echo "no task file"; exit 9; }
[ "$(cat /odek/key/api-key)" = "sk-on-the-plane" ] || { echo "no key file"; exit 8; }
env | grep -q sk-on-the-plane && { echo "the key is in the environment"; exit 7; }
echo '{"type":"subagent_started","task_id":"` + testTaskID + `","pid":1}'
case "$*" in *--max-iter\ 99*) exec sleep 600 ;; esac
echo '{"type":"result","task_id":"` + testTaskID + `","result":{"status":"success","summary":"ran in a pod","tokens_used":3,"iterations":1,"duration_seconds":0.1,"odek_version":"v1.2.3","usage":{"input_tokens":2,"output_tokens":1,"tool_calls":0}}}'
`

// TestOnTheRealPlane: against a real API server, Job controller,
// scheduler, garbage collector and node, a child runs as a Job with its
// task and key mounted as files and its result comes back through the
// log; a child whose image cannot be pulled ends with the node's reason
// at the schedule timeout; either way the Job, its pod, ConfigMap and
// Secret are gone when odek-kube exits.
func TestOnTheRealPlane(t *testing.T) {
	p := kubetest.Shared(t)
	exe := filepath.Join(t.TempDir(), "odek")
	if err := os.WriteFile(exe, []byte(podChild), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := p.MapImage("odek:plane", exe); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, image, want string
		code              int
		cancel            bool
		cpu               string // a CPU request; "1000" is more than the node has
	}{
		{"runs", "odek:plane", "ran in a pod", 0, false, ""},
		{"image not pulled", "odek:nowhere", "the pod was not started within 20s: ErrImagePull", exitError, false, ""},
		// The scheduler finds no node: the child ends at the schedule
		// timeout with the scheduler's reason.
		{"never scheduled", "odek:plane", "the pod was not scheduled within 20s: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu", exitError, false, "1000"},
		// The parent stops a running child (SIGTERM: the context ends)
		// once its first line arrived.
		{"cancelled", "odek:plane", ErrCancelled.Error(), exitInterrupt, true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &cluster{t: t}
			start := time.Now()
			code, out := c.runOn(p.Kubeconfig, tc.image, tc.cancel, tc.cpu)
			r := resultOf(t, out)
			if code != tc.code || !strings.Contains(r.Summary+r.Error, tc.want) {
				t.Fatalf("exit %d, result %+v, want %q", code, r, tc.want)
			}
			t.Logf("%s: %s from odek-kube's start to its exit", tc.name, time.Since(start).Round(time.Millisecond))
			ctx := context.Background()
			name := jobName(testTaskID)
			if _, err := p.Client.BatchV1().Jobs("default").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the Job is still there: %v", err)
			}
			if _, err := p.Client.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the ConfigMap is still there: %v", err)
			}
			if _, err := p.Client.CoreV1().Secrets("default").Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("the Secret is still there: %v", err)
			}
			pods, err := p.Client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: jobNameLabel + "=" + name})
			if err != nil || len(pods.Items) != 0 {
				t.Errorf("pods left: %v %v", pods, err)
			}
		})
	}
}

// runOn runs the helper against a real cluster.
func (c *cluster) runOn(kubeconfig, image string, cancelOnStart bool, cpu string) (int, string) {
	t := c.t
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	_ = os.Mkdir(root, 0o700)
	task := wire.Task{TaskID: testTaskID, Protocol: wire.Protocol, Goal: "say hello", ArtifactRoot: root}
	data, _ := task.Encode()
	taskFile := filepath.Join(dir, "task.json")
	if err := os.WriteFile(taskFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := wire.KubeSettings{Kubeconfig: kubeconfig, Namespace: "default", Image: image, TTLSecondsAfterFinished: 60, ScheduleTimeoutSeconds: 20}
	if cpu != "" {
		s.Requests = map[string]string{"cpu": cpu}
	}
	sj, _ := jsonMarshal(s)
	env := map[string]string{wire.EnvKubeSettings: sj, wire.EnvParentVersion: "v1.2.3"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	iters := "5"
	var out io.Writer = &strings.Builder{}
	buf := out.(*strings.Builder)
	if cancelOnStart {
		iters = "99" // the stand-in then sleeps
		out = cancelWriter{buf, cancel}
	}
	code := Main(ctx, Options{
		Args:      []string{"subagent", "--task", taskFile, "--quiet", "--stream", "--timeout", "120", "--max-iter", iters},
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Key:       "sk-on-the-plane", Stdout: out, Stderr: testWriter{t}, Version: "v1.2.3",
		CleanupTimeout: 60 * time.Second})
	return code, buf.String()
}

// cancelWriter ends the run's context once the child's first line came.
type cancelWriter struct {
	b      *strings.Builder
	cancel context.CancelFunc
}

func (w cancelWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"subagent_started"`) {
		w.cancel()
	}
	return w.b.Write(p)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

var _ io.Writer = testWriter{}

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
