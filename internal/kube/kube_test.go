package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/odek-run/odek/internal/artifact"
	"github.com/odek-run/odek/internal/subagent/wire"
)

func ok(t *testing.T, version string) string {
	return resultLine(t, wire.Result{Status: wire.StatusSuccess, Summary: "hello", TokensUsed: 7, Iterations: 1,
		Usage: &wire.Usage{InputTokens: 5, OutputTokens: 2}, OdekVersion: version})
}

// TestJobShape: one child is a Job that runs once and never longer than
// its timeout, its task in a ConfigMap and its key in a Secret (files,
// never the environment or the arguments), both owned by the Job; the
// child's lines and result come back; the Job is deleted in the
// foreground at the end.
func TestJobShape(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.log = func() io.Reader {
		return strings.NewReader(`{"type":"subagent_started","task_id":"` + testTaskID + `","pid":1}` + "\n" + ok(t, "v1.2.3"))
	}
	code, out, _ := c.run(context.Background(), run{key: "sk-secret-key", env: map[string]string{"ODEK_SUBAGENT_DEPTH": "1",
		"TRACEPARENT": "00-0123456789abcdef0123456789abcdef-0123456789abcdef-01", "OPENAI_API_KEY": "sk-env"},
		task:     wire.Task{ParentRunID: "0123456789abcdef0123456789abcdef", ParentSession: "s1", Budget: &wire.Budget{MaxToolCalls: 3}},
		settings: wire.KubeSettings{ServiceAccount: "", TTLSecondsAfterFinished: 600, Labels: map[string]string{"team": "platform"}, Requests: map[string]string{"cpu": "500m"}}})
	if code != 0 {
		t.Fatalf("exit %d, out %q", code, out)
	}
	if !strings.Contains(out, `"type":"subagent_started"`) || resultOf(t, out).Summary != "hello" {
		t.Errorf("stdout %q", out)
	}
	job := c.created("jobs").(*batchv1.Job)
	sp := job.Spec
	if *sp.BackoffLimit != 0 || *sp.ActiveDeadlineSeconds != 60+deadlineMarginSeconds || *sp.TTLSecondsAfterFinished != 600 {
		t.Errorf("backoffLimit %d, activeDeadlineSeconds %d, ttl %d", *sp.BackoffLimit, *sp.ActiveDeadlineSeconds, *sp.TTLSecondsAfterFinished)
	}
	ps := sp.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever || *ps.AutomountServiceAccountToken || !*ps.SecurityContext.RunAsNonRoot {
		t.Errorf("pod spec %+v", ps)
	}
	for k, v := range map[string]string{labelTask: testTaskID, labelParentRun: "0123456789abcdef0123456789abcdef", labelSession: "s1", "team": "platform"} {
		if job.Labels[k] != v || sp.Template.Labels[k] != v {
			t.Errorf("label %s = %q / %q, want %q", k, job.Labels[k], sp.Template.Labels[k], v)
		}
	}
	ct := ps.Containers[0]
	want := "odek subagent --task /odek/task/task.json --artifact-frame --key-file /odek/key/api-key --quiet --stream --timeout 60 --max-iter 5"
	if got := strings.Join(ct.Command, " "); got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	var env []string
	for _, e := range ct.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	if got := strings.Join(env, " "); got != "ODEK_SUBAGENT_DEPTH=1 TRACEPARENT=00-0123456789abcdef0123456789abcdef-0123456789abcdef-01" {
		t.Errorf("env %q: only the depth and the trace context cross", got)
	}
	if q := ct.Resources.Requests[corev1.ResourceCPU]; q.String() != "500m" || *ct.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("container %+v", ct)
	}
	cm := c.created("configmaps").(*corev1.ConfigMap)
	sec := c.created("secrets").(*corev1.Secret)
	for _, m := range []metav1.ObjectMeta{cm.ObjectMeta, sec.ObjectMeta} {
		if len(m.OwnerReferences) != 1 || m.OwnerReferences[0].Kind != "Job" || m.OwnerReferences[0].Name != job.Name || !*m.OwnerReferences[0].BlockOwnerDeletion {
			t.Errorf("%s owner references %+v", m.Name, m.OwnerReferences)
		}
	}
	task, err := wire.ParseTask([]byte(cm.Data[taskKey]))
	if err != nil || task.ArtifactRoot != artifactDir || task.Budget.MaxToolCalls != 3 {
		t.Errorf("the pod's task: %+v, %v", task, err)
	}
	if string(sec.Data[keyKey]) != "sk-secret-key" {
		t.Errorf("secret %q", sec.Data)
	}
	d := c.deletions()
	if len(d) != 1 || *d[0].PropagationPolicy != metav1.DeletePropagationForeground {
		t.Errorf("Job deletions %+v, want one in the foreground", d)
	}
}

// TestArtifactsCrossTheLog: the frame after the result lands in the
// parent's artifact root, and the refs, rebased, pass the parent's own
// validation; a frame that does not match its hash is refused and the
// summary says so.
func TestArtifactsCrossTheLog(t *testing.T) {
	t.Parallel()
	ref, frame := podArtifact(t, "notes.txt", "line one\nline two\n")
	res := wire.Result{Status: wire.StatusSuccess, Summary: "done", Artifacts: []artifact.Ref{ref}, OdekVersion: "v1.2.3", Usage: &wire.Usage{}}
	c := newCluster(t)
	c.log = func() io.Reader { return strings.NewReader(resultLine(t, res) + frame) }
	code, out, root := c.run(context.Background(), run{})
	got := resultOf(t, out)
	if code != 0 || len(got.Artifacts) != 1 {
		t.Fatalf("exit %d, result %+v", code, got)
	}
	if _, err := artifact.Validate(got.Artifacts[0], []string{root}); err != nil {
		t.Errorf("the ref after the crossing: %v", err)
	}
	if strings.Contains(out, `"type":"artifacts"`) {
		t.Errorf("the frame reached the parent: %q", out)
	}

	c2 := newCluster(t)
	c2.log = func() io.Reader { return strings.NewReader(resultLine(t, res) + tamper(frame)) }
	_, out2, root2 := c2.run(context.Background(), run{})
	got2 := resultOf(t, out2)
	if !strings.Contains(got2.Summary, "[artifact] the artifacts the pod sent were refused") {
		t.Errorf("summary %q", got2.Summary)
	}
	if _, err := artifact.Validate(got2.Artifacts[0], []string{root2}); err == nil {
		t.Errorf("a ref of a refused frame validated")
	}
}

// tamper changes the frame's announced hash.
func tamper(frame string) string {
	i := strings.Index(frame, `"sha256":"`) + len(`"sha256":"`)
	c := "0"
	if frame[i] == '0' {
		c = "1"
	}
	return frame[:i] + c + frame[i+1:]
}

// TestVersionMismatch: a result from a pod whose odek is not the parent's
// is refused, and without usage the parent charges the whole share.
func TestVersionMismatch(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.log = func() io.Reader { return strings.NewReader(ok(t, "v0.9.0")) }
	code, out, _ := c.run(context.Background(), run{})
	r := resultOf(t, out)
	if code != exitError || r.Status != wire.StatusError || !strings.Contains(r.Error, `the pod runs odek "v0.9.0", the parent is odek "v1.2.3"`) || r.Usage != nil {
		t.Errorf("exit %d, result %+v", code, r)
	}
}

// TestNeverRuns: a pod the scheduler cannot place, or whose image cannot
// be pulled, ends at the schedule timeout (at once when waiting cannot
// help) with the cluster's reason; it spent nothing; the Job is deleted.
func TestNeverRuns(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		state func(*corev1.Pod)
		want  string
	}{
		{"unschedulable", func(p *corev1.Pod) {
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
				Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/1 nodes are available: 1 Insufficient cpu."}}}
		}, "the pod was not scheduled within 1s: Unschedulable: 0/1 nodes are available: 1 Insufficient cpu."},
		{"image pull", func(p *corev1.Pod) {
			p.Spec.NodeName = "n1"
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: containerName,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "odek:test"`}}}}}
		}, `the pod was not started within 1s: ImagePullBackOff: Back-off pulling image "odek:test"`},
		{"invalid image", func(p *corev1.Pod) {
			p.Spec.NodeName = "n1"
			p.Status = corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: containerName,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "InvalidImageName"}}}}}
		}, "the pod was not started within its first try: InvalidImageName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t)
			c.podState = tc.state
			code, out, _ := c.run(context.Background(), run{settings: wire.KubeSettings{ScheduleTimeoutSeconds: 1}})
			r := resultOf(t, out)
			if code != exitError || r.Error != tc.want || r.Usage == nil || *r.Usage != (wire.Usage{}) {
				t.Errorf("exit %d, result %+v, want error %q and zero usage", code, r, tc.want)
			}
			if len(c.deletions()) != 1 {
				t.Errorf("the Job was not deleted")
			}
		})
	}
}

// TestFloodDeletesTheJob: a pod whose log breaks a local child's stdout
// cap is stopped, its Job deleted before the parent hears of it.
func TestFloodDeletesTheJob(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	limit := wire.DefaultStreamLimits().MaxLines
	c.log = func() io.Reader { return strings.NewReader(strings.Repeat("x\n", int(limit)+10)) }
	code, out, _ := c.run(context.Background(), run{})
	r := resultOf(t, out)
	if code != exitError || r.Status != wire.StatusKilledFlood || !strings.Contains(r.Error, fmt.Sprintf("more than %d lines", limit)) || r.Usage != nil {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if n := strings.Count(out, "x\n"); int64(n) != limit {
		t.Errorf("%d lines relayed, want the %d the cap allows", n, limit)
	}
	if len(c.deletions()) != 1 {
		t.Errorf("the Job was not deleted")
	}
}

// TestCancelled: a parent that stops the child (SIGTERM: the context)
// while its pod waits gets the Job deleted and exit 130.
func TestCancelled(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	c.podState = func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodPending
		cancel() // the parent stops it as soon as the pod exists
	}
	code, out, _ := c.run(ctx, run{})
	r := resultOf(t, out)
	if code != exitInterrupt || !strings.Contains(r.Error, ErrCancelled.Error()) {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if len(c.deletions()) != 1 {
		t.Errorf("the Job was not deleted")
	}
}

// TestCreateRefused: a Secret the cluster refuses (RBAC) is a setup
// error, and the Job already made is deleted.
func TestCreateRefused(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	c.client.PrependReactor("create", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "odek-x", errors.New("RBAC: no"))
	})
	code, out, _ := c.run(context.Background(), run{key: "sk"})
	r := resultOf(t, out)
	if code != exitSetup || !strings.Contains(r.Error, "creating Secret agents/odek-"+testTaskID) || !strings.Contains(r.Error, "forbidden") {
		t.Errorf("exit %d, result %+v", code, r)
	}
	if len(c.deletions()) != 1 {
		t.Errorf("the Job was not deleted")
	}
}

// TestSetupErrors: what cannot work in a pod is refused before anything
// is created.
func TestSetupErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		r    run
		want string
	}{
		{"a local file flag", run{args: []string{"subagent", "--task", "/x", "--output-schema", "s.json"}}, `unknown flag "--output-schema"`},
		{"no image", run{settings: wire.KubeSettings{Image: " "}}, "subagent.kubernetes.image is not set"},
		{"bad quantity", run{settings: wire.KubeSettings{Limits: map[string]string{"memory": "lots"}}}, `resources.limits.memory: "lots" is not a quantity`},
		{"bad label", run{settings: wire.KubeSettings{Labels: map[string]string{"team": "a b"}}}, "subagent.kubernetes.labels.team"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t)
			code, out, _ := c.run(context.Background(), tc.r)
			if r := resultOf(t, out); code != exitSetup || !strings.Contains(r.Error, tc.want) {
				t.Errorf("exit %d, result %+v, want %q", code, r, tc.want)
			}
			if n := len(c.client.Actions()); n != 0 {
				t.Errorf("%d API calls", n)
			}
		})
	}
}
