package kube

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/subagent/wire"
)

const testTaskID = "task-0123456789abcdef"

// cluster is a fake API server with a stand-in for the Job controller and
// the node: a created Job gets a pod in the state podState gives, and its
// log is what log returns (after which the pod ends with exitCode).
type cluster struct {
	t        *testing.T
	client   *fake.Clientset
	podState func(*corev1.Pod) // nil: Running
	noPod    bool              // the Job controller makes no pod
	log      func() io.Reader
	exitCode int32
	deadline bool // the pod is killed before its container ends (activeDeadlineSeconds)
	mu       sync.Mutex
	deleted  []metav1.DeleteOptions // Job deletions, in order
}

func newCluster(t *testing.T) *cluster {
	c := &cluster{t: t, client: fake.NewClientset()}
	c.client.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		job := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		if c.noPod {
			return false, nil, nil
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: job.Name + "-x1", Namespace: job.Namespace,
			Labels: map[string]string{jobNameLabel: job.Name}}, Spec: job.Spec.Template.Spec,
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		if c.podState != nil {
			c.podState(pod)
		}
		if err := c.client.Tracker().Add(pod); err != nil {
			t.Error(err)
		}
		return false, nil, nil
	})
	c.client.PrependReactor("delete", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.deleted = append(c.deleted, a.(k8stesting.DeleteActionImpl).GetDeleteOptions())
		return false, nil, nil
	})
	return c
}

// logs is Options.Logs: the pod's log, and the pod ended once it is read.
func (c *cluster) logs(ctx context.Context, ns, pod string) (io.ReadCloser, error) {
	p, err := c.client.CoreV1().Pods(ns).Get(ctx, pod, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	p.Status.Phase = corev1.PodSucceeded
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: containerName,
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: c.exitCode, Reason: "Completed"}}}}
	if c.deadline {
		p.Status.Phase, p.Status.Reason, p.Status.Message = corev1.PodFailed, "DeadlineExceeded", "Pod was active on the node longer than the specified deadline"
		p.Status.ContainerStatuses = nil
	}
	if _, err := c.client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
		return nil, err
	}
	return io.NopCloser(c.log()), nil
}

func (c *cluster) deletions() []metav1.DeleteOptions {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]metav1.DeleteOptions(nil), c.deleted...)
}

// created is the object of the first create action on resource.
func (c *cluster) created(resource string) runtime.Object {
	for _, a := range c.client.Actions() {
		if ca, ok := a.(k8stesting.CreateAction); ok && a.GetVerb() == "create" && a.GetResource().Resource == resource {
			return ca.GetObject()
		}
	}
	return nil
}

// taskFileArg in run.args stands for the task file run writes.
const taskFileArg = "$TASK"

// run is one helper run against the cluster; it returns the exit code,
// stdout and the parent's artifact root.
type run struct {
	args     []string
	settings wire.KubeSettings
	key      string
	env      map[string]string
	task     wire.Task
	stdout   io.Writer // also gets the helper's stdout, as it is written
}

func (c *cluster) run(ctx context.Context, r run) (int, string, string) {
	t := c.t
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Fatal(err)
	}
	task := r.task
	if task.Goal == "" {
		task.Goal = "say hello"
	}
	task.TaskID, task.Protocol, task.ArtifactRoot = testTaskID, wire.Protocol, root
	data, err := task.Encode()
	if err != nil {
		t.Fatal(err)
	}
	taskFile := filepath.Join(dir, "task.json")
	if err := os.WriteFile(taskFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := r.settings
	if s.Image == "" {
		s.Image = "odek:test"
	}
	sj, _ := json.Marshal(s)
	env := map[string]string{wire.EnvKubeSettings: string(sj), wire.EnvParentVersion: "v1.2.3"}
	for k, v := range r.env {
		env[k] = v
	}
	args := append([]string(nil), r.args...)
	for i, a := range args {
		if a == taskFileArg {
			args[i] = taskFile
		}
	}
	if r.args == nil {
		args = []string{"subagent", "--task", taskFile, "--quiet", "--stream", "--timeout", "60", "--max-iter", "5"}
	}
	var out bytes.Buffer
	var stdout io.Writer = &out
	if r.stdout != nil {
		stdout = io.MultiWriter(&out, r.stdout)
	}
	code := Main(ctx, Options{Args: args, LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Key: r.key, Stdout: stdout, Stderr: io.Discard, Version: "v1.2.3", Client: c.client, Namespace: "agents",
		Logs: c.logs, CleanupTimeout: 5 * time.Second, ExitTimeout: 5 * time.Second})
	return code, out.String(), root
}

// resultOf is the result line of out.
func resultOf(t *testing.T, out string) *wire.Result {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if r := wire.ResultLine([]byte(line)); r != nil {
			return r
		}
	}
	t.Fatalf("no result line in %q", out)
	return nil
}

// resultLine is a child's framed result of version v.
func resultLine(t *testing.T, r wire.Result) string {
	b, err := json.Marshal(wire.Line{Type: wire.LineResult, TaskID: testTaskID, Result: &r})
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// podArtifact stages a file as the child in the pod would have collected
// it: the ref names /odek/artifacts/<name>, the frame carries its bytes.
func podArtifact(t *testing.T, name, body string) (artifact.Ref, string) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(body))
	size := int64(len(body))
	local := artifact.Ref{Schema: artifact.SchemaArtifactRef, ID: strings.TrimSuffix(name, filepath.Ext(name)),
		URI: (&url.URL{Scheme: "file", Path: filepath.Join(dir, name)}).String(), MediaType: "text/plain",
		SHA256: hex.EncodeToString(sum[:]), SizeBytes: &size}
	var frame bytes.Buffer
	if err := wire.WriteArtifactFrame(&frame, testTaskID, dir, []artifact.Ref{local}); err != nil {
		t.Fatal(err)
	}
	inPod := local
	inPod.URI = (&url.URL{Scheme: "file", Path: artifactDir + "/" + name}).String()
	return inPod, frame.String()
}
