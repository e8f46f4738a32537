package kube

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/odek-run/odek/internal/subagent/wire"
)

// Tests of the runner's promises that the hand mutations of
// scripts/hand-mutations.txt (## internal/kube) found unchecked.

// TestPodHardening: the child's container drops every capability, cannot
// gain privileges, and its task and key are mounted read-only (a child
// that rewrote its task file could widen its own budget or sandbox).
func TestPodHardening(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.log = func() io.Reader { return strings.NewReader(ok(t, "v1.2.3")) }
	if code, out, _ := c.run(context.Background(), run{key: "sk-k"}); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	ps := c.created("jobs").(*batchv1.Job).Spec.Template.Spec
	ct := ps.Containers[0]
	sc := ct.SecurityContext
	if sc == nil || sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0 {
		t.Errorf("capabilities %+v, want every one dropped", sc)
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("allowPrivilegeEscalation not false: %+v", sc)
	}
	if ps.SecurityContext == nil || ps.SecurityContext.RunAsNonRoot == nil || !*ps.SecurityContext.RunAsNonRoot {
		t.Errorf("pod security context %+v, want runAsNonRoot", ps.SecurityContext)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range ct.VolumeMounts {
		mounts[m.Name] = m
	}
	for _, name := range []string{"task", "key"} {
		if m, ok := mounts[name]; !ok || !m.ReadOnly {
			t.Errorf("%s mount %+v, want present and read-only", name, m)
		}
	}
	if m := mounts["artifacts"]; m.ReadOnly || m.MountPath != artifactDir {
		t.Errorf("artifacts mount %+v, want writable at %s", m, artifactDir)
	}
}

// TestTaskTooLargeForAConfigMap: a task whose pod copy does not fit a
// ConfigMap is refused with the sizes before anything is created.
func TestTaskTooLargeForAConfigMap(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	code, out, _ := c.run(context.Background(), run{task: wire.Task{Context: strings.Repeat("c", 1<<20)}})
	r := resultOf(t, out)
	if code != exitSetup || !strings.Contains(r.Error, "do not fit a ConfigMap (at most 1024000)") {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if n := len(c.client.Actions()); n != 0 {
		t.Errorf("%d API calls, want none", n)
	}
	// Just under the cap it goes through.
	c = newCluster(t)
	c.log = func() io.Reader { return strings.NewReader(ok(t, "v1.2.3")) }
	if code, out, _ := c.run(context.Background(), run{task: wire.Task{Context: strings.Repeat("c", 1000<<10-4096)}}); code != 0 {
		t.Errorf("a task under the cap: exit %d, %s", code, out)
	}
}

// TestConfigMapRefusedDeletesTheJob: a ConfigMap the cluster refuses is a
// setup error naming it, and the Job already made is deleted.
func TestConfigMapRefusedDeletesTheJob(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.client.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "odek-x", errors.New("RBAC: no"))
	})
	code, out, _ := c.run(context.Background(), run{key: "sk"})
	r := resultOf(t, out)
	if code != exitSetup || !strings.Contains(r.Error, "creating ConfigMap agents/odek-"+testTaskID) {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if len(c.deletions()) != 1 {
		t.Errorf("the Job was not deleted")
	}
	if c.created("secrets") != nil {
		t.Error("the key's Secret was made after the ConfigMap failed")
	}
}

// deletedFirst records, when the helper writes its result line, whether
// the Job had been deleted by then.
type deletedFirst struct {
	c      *cluster
	mu     sync.Mutex
	seen   bool
	before bool
}

func (d *deletedFirst) Write(p []byte) (int, error) {
	if strings.Contains(string(p), `"type":"result"`) {
		d.mu.Lock()
		d.seen, d.before = true, len(d.c.deletions()) > 0
		d.mu.Unlock()
	}
	return len(p), nil
}

// TestJobGoneBeforeTheParentHears: after a flood, and when the parent
// stops the child, the Job is deleted before the result line is written:
// a parent that kills the helper once it reads the result must not leave
// a Job running.
func TestJobGoneBeforeTheParentHears(t *testing.T) {
	t.Parallel()
	limit := wire.DefaultStreamLimits().MaxLines
	for _, tc := range []struct {
		name  string
		setup func(c *cluster, cancel context.CancelFunc)
	}{
		{"flood", func(c *cluster, _ context.CancelFunc) {
			c.log = func() io.Reader { return strings.NewReader(strings.Repeat("x\n", int(limit)+10)) }
		}},
		{"cancelled while pending", func(c *cluster, cancel context.CancelFunc) {
			c.podState = func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending; cancel() }
		}},
		{"cancelled while running", func(c *cluster, cancel context.CancelFunc) {
			c.log = func() io.Reader { cancel(); return strings.NewReader("a line\n") }
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tc.setup(c, cancel)
			d := &deletedFirst{c: c}
			c.run(ctx, run{stdout: d})
			if !d.seen {
				t.Fatal("no result line")
			}
			if !d.before {
				t.Error("the result line was written before the Job's deletion")
			}
		})
	}
}

// TestScheduleWaitIsBoundedByTheChildTimeout: a child whose own timeout
// is shorter than the schedule timeout waits no longer than its timeout
// for its pod to be scheduled.
func TestScheduleWaitIsBoundedByTheChildTimeout(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.podState = func(p *corev1.Pod) {
		p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
			Status: corev1.ConditionFalse, Reason: "Unschedulable"}}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := make(chan string, 1)
	go func() {
		_, out, _ := c.run(ctx, run{args: []string{"subagent", "--task", taskFileArg, "--timeout", "1"},
			settings: wire.KubeSettings{ScheduleTimeoutSeconds: 600}})
		res <- out
	}()
	select {
	case out := <-res:
		if r := resultOf(t, out); !strings.Contains(r.Error, "not scheduled within 1s") {
			t.Errorf("result %+v, want the pod not scheduled within the child's 1s", r)
		}
	case <-time.After(60 * time.Second):
		cancel()
		<-res
		t.Fatal("the helper waited past the child's timeout of 1 s for its pod (60 s)")
	}
}

// TestDeadlineKillIsATimeout: a pod the cluster killed before its
// container ended (activeDeadlineSeconds) ends the helper with a timeout's
// exit code 2, never 0.
func TestDeadlineKillIsATimeout(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.deadline = true
	c.log = func() io.Reader { return strings.NewReader("") }
	if code, out, _ := c.run(context.Background(), run{}); code != 2 {
		t.Errorf("exit %d, want 2: %s", code, out)
	}
}

// TestDefaultTimeout: a child started without --timeout gets the local
// default of 1800 s, and its Job that and the margin.
func TestDefaultTimeout(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.log = func() io.Reader { return strings.NewReader(ok(t, "v1.2.3")) }
	if code, out, _ := c.run(context.Background(), run{args: []string{"subagent", "--task", taskFileArg}}); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if d := *c.created("jobs").(*batchv1.Job).Spec.ActiveDeadlineSeconds; d != 1800+deadlineMarginSeconds {
		t.Errorf("activeDeadlineSeconds %d, want %d", d, 1800+deadlineMarginSeconds)
	}
}

// TestBadLabelKey: a label name the API server would refuse is refused at
// setup, naming the setting, before anything is created.
func TestBadLabelKey(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	code, out, _ := c.run(context.Background(), run{settings: wire.KubeSettings{Labels: map[string]string{"bad key": "v"}}})
	if r := resultOf(t, out); code != exitSetup || !strings.Contains(r.Error, `subagent.kubernetes.labels: "bad key"`) {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if n := len(c.client.Actions()); n != 0 {
		t.Errorf("%d API calls", n)
	}
}
