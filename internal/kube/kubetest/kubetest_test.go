package kubetest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/odek-run/odek/internal/kube/kubetest"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// shellImage is mapped to /bin/sh on the test node.
const shellImage = "shell:test"

func TestMain(m *testing.M) {
	os.Exit(kubetest.Main(m, kubetest.Options{Images: map[string]string{shellImage: "/bin/sh"}}))
}

var nsSeq atomic.Int32

// namespace creates a namespace for one test.
func namespace(t *testing.T, p *kubetest.Plane) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d", os.Getpid()%10000, nsSeq.Add(1))
	_, err := p.Client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Pods cannot be created before the namespace's default service account.
	eventually(t, "default service account in "+name, func(ctx context.Context) bool {
		_, err := p.Client.CoreV1().ServiceAccounts(name).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	return name
}

// eventually waits until cond holds, failing the test after a minute.
func eventually(t *testing.T, what string, cond func(context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !cond(ctx) {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// shellJob is a Job of one pod running script under /bin/sh.
func shellJob(name, script string) *batchv1.Job {
	zero := int32(0)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{
					Name: "main", Image: shellImage,
					Command: []string{"/bin/sh", "-c", script},
				}},
			}},
		},
	}
}

func createJob(t *testing.T, c kubernetes.Interface, ns string, job *batchv1.Job) *batchv1.Job {
	t.Helper()
	job, err := c.BatchV1().Jobs(ns).Create(context.Background(), job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// jobCondition waits for the job to have condition typ true and returns it.
func jobCondition(t *testing.T, c kubernetes.Interface, ns, name string, typ batchv1.JobConditionType) batchv1.JobCondition {
	t.Helper()
	var got batchv1.JobCondition
	eventually(t, fmt.Sprintf("job %s condition %s", name, typ), func(ctx context.Context) bool {
		job, err := c.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, cond := range job.Status.Conditions {
			if cond.Type == typ && cond.Status == corev1.ConditionTrue {
				got = cond
				return true
			}
		}
		return false
	})
	return got
}

// jobPod waits for the job's one pod and returns it once ready(pod) holds.
func jobPod(t *testing.T, c kubernetes.Interface, ns, job string, ready func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var got *corev1.Pod
	eventually(t, "pod of job "+job, func(ctx context.Context) bool {
		pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
		if err != nil || len(pods.Items) == 0 {
			return false
		}
		got = &pods.Items[0]
		return ready(got)
	})
	return got
}

func terminated(pod *corev1.Pod) *corev1.ContainerStateTerminated {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			return cs.State.Terminated
		}
	}
	return nil
}

func readLogs(t *testing.T, c kubernetes.Interface, ns, pod string, opts *corev1.PodLogOptions) string {
	t.Helper()
	rc, err := c.CoreV1().Pods(ns).GetLogs(pod, opts).Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A Job whose command exits 3 fails; its pod reports exit code 3 and its
// log is readable through the API server, followed or not.
func TestJobFailsWithExitCode(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	createJob(t, p.Client, ns, shellJob("exit3", "echo hi; exit 3"))
	jobCondition(t, p.Client, ns, "exit3", batchv1.JobFailed)
	pod := jobPod(t, p.Client, ns, "exit3", func(p *corev1.Pod) bool { return terminated(p) != nil })
	if pod.Status.Phase != corev1.PodFailed {
		t.Errorf("pod phase = %s, want Failed", pod.Status.Phase)
	}
	term := terminated(pod)
	if term.ExitCode != 3 || term.FinishedAt.IsZero() || term.StartedAt.IsZero() {
		t.Errorf("terminated = %+v, want exit code 3 with start and finish times", term)
	}
	for _, follow := range []bool{false, true} {
		if got := readLogs(t, p.Client, ns, pod.Name, &corev1.PodLogOptions{Follow: follow}); got != "hi\n" {
			t.Errorf("logs (follow=%v) = %q, want %q", follow, got, "hi\n")
		}
	}
}

// A followed log streams lines as the container writes them and ends when
// the container exits.
func TestLogsFollow(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	// The container shares the host's files outside its mounts: it waits
	// for a file the test creates once it has read the first line.
	release := filepath.Join(t.TempDir(), "release")
	job := shellJob("follow", `echo one; while [ ! -e "$RELEASE" ]; do sleep 0.05; done; echo two`)
	job.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "RELEASE", Value: release}}
	createJob(t, p.Client, ns, job)
	pod := jobPod(t, p.Client, ns, "follow", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	rc, err := p.Client.CoreV1().Pods(ns).GetLogs(pod.Name, &corev1.PodLogOptions{Follow: true}).Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	r := bufio.NewReader(rc)
	if line, err := r.ReadString('\n'); line != "one\n" {
		t.Fatalf("first followed line = %q (%v), want %q", line, err, "one\n")
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "two\n" {
		t.Errorf("rest of the followed log = %q (%v), want %q and the end", rest, err, "two\n")
	}
}

// A pod sees its env with $(VAR) expanded, its ConfigMap and Secret as
// read-only files at their mount paths and a writable emptyDir.
func TestPodVolumesAndEnv(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	ctx := context.Background()
	if _, err := p.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "task"}, Data: map[string]string{"task.md": "do it", "other": "x"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "key"}, Data: map[string][]byte{"api-key": []byte("s3cret")},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	script := `echo "$(GREETING)"; cat /odek-kubetest/task/task.md; echo; ls /odek-kubetest/task; cat /odek-kubetest/key/key.txt; echo
touch /odek-kubetest/task/new 2>/dev/null && echo task-writable
echo out > /odek-kubetest/out/file && cat /odek-kubetest/out/file`
	job := shellJob("vols", script)
	spec := &job.Spec.Template.Spec
	spec.Containers[0].Env = []corev1.EnvVar{{Name: "WHO", Value: "pod"}, {Name: "GREETING", Value: "hello $(WHO)"}}
	spec.Containers[0].VolumeMounts = []corev1.VolumeMount{
		{Name: "task", MountPath: "/odek-kubetest/task"},
		{Name: "key", MountPath: "/odek-kubetest/key"},
		{Name: "out", MountPath: "/odek-kubetest/out"},
	}
	spec.Volumes = []corev1.Volume{
		{Name: "task", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
			LocalObjectReference: corev1.LocalObjectReference{Name: "task"},
			Items:                []corev1.KeyToPath{{Key: "task.md", Path: "task.md"}}}}},
		{Name: "key", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: "key", Items: []corev1.KeyToPath{{Key: "api-key", Path: "key.txt"}}}}},
		{Name: "out", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}
	createJob(t, p.Client, ns, job)
	jobCondition(t, p.Client, ns, "vols", batchv1.JobComplete)
	pod := jobPod(t, p.Client, ns, "vols", func(p *corev1.Pod) bool { return terminated(p) != nil })
	want := "hello pod\ndo it\ntask.md\ns3cret\nout\n"
	if got := readLogs(t, p.Client, ns, pod.Name, &corev1.PodLogOptions{}); got != want {
		t.Errorf("logs = %q, want %q", got, want)
	}
	if _, err := os.Stat("/odek-kubetest"); !os.IsNotExist(err) {
		t.Errorf("the mount points were left on the host: %v", err)
	}
}

// A Job whose pod can be scheduled nowhere stays Pending, its pod marked
// PodScheduled=False, Unschedulable.
func TestUnschedulable(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	job := shellJob("nowhere", "exit 0")
	job.Spec.Template.Spec.NodeSelector = map[string]string{"odek.dev/no-such-node": "true"}
	createJob(t, p.Client, ns, job)
	pod := jobPod(t, p.Client, ns, "nowhere", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				return c.Reason == corev1.PodReasonUnschedulable
			}
		}
		return false
	})
	if pod.Status.Phase != corev1.PodPending || pod.Spec.NodeName != "" {
		t.Errorf("pod phase %s on node %q, want Pending on none", pod.Status.Phase, pod.Spec.NodeName)
	}
}

// An image the node does not know leaves the pod Pending, its container
// waiting with ErrImagePull.
func TestUnknownImage(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	job := shellJob("noimage", "exit 0")
	job.Spec.Template.Spec.Containers[0].Image = "no-such-image:1"
	createJob(t, p.Client, ns, job)
	jobPod(t, p.Client, ns, "noimage", func(p *corev1.Pod) bool {
		for _, cs := range p.Status.ContainerStatuses {
			if w := cs.State.Waiting; w != nil && w.Reason == "ErrImagePull" {
				return p.Status.Phase == corev1.PodPending
			}
		}
		return false
	})
}

// A foreground delete of a running Job kills its pod's processes and
// removes the pod and a ConfigMap the Job owns before the Job itself.
func TestForegroundDelete(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	ctx := context.Background()
	job := createJob(t, p.Client, ns, shellJob("fg", "echo started; exec sleep 300"))
	ctrue := true
	if _, err := p.Client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "fg-task",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name,
			UID: job.UID, BlockOwnerDeletion: &ctrue}},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := jobPod(t, p.Client, ns, "fg", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	fg := metav1.DeletePropagationForeground
	if err := p.Client.BatchV1().Jobs(ns).Delete(ctx, "fg", metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "job, pod and configmap gone", func(ctx context.Context) bool {
		_, errJob := p.Client.BatchV1().Jobs(ns).Get(ctx, "fg", metav1.GetOptions{})
		_, errPod := p.Client.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		_, errCM := p.Client.CoreV1().ConfigMaps(ns).Get(ctx, "fg-task", metav1.GetOptions{})
		return apierrors.IsNotFound(errJob) && apierrors.IsNotFound(errPod) && apierrors.IsNotFound(errCM)
	})
}

// The Job controller enforces activeDeadlineSeconds: the Job fails with
// DeadlineExceeded and its pod is deleted (its processes killed).
func TestActiveDeadline(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	job := shellJob("deadline", "exec sleep 300")
	deadline := int64(2)
	job.Spec.ActiveDeadlineSeconds = &deadline
	grace := int64(1)
	job.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
	createJob(t, p.Client, ns, job)
	cond := jobCondition(t, p.Client, ns, "deadline", batchv1.JobFailed)
	if cond.Reason != batchv1.JobReasonDeadlineExceeded {
		t.Errorf("failed condition reason = %q, want DeadlineExceeded", cond.Reason)
	}
	eventually(t, "deadline pod gone", func(ctx context.Context) bool {
		pods, err := p.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=deadline"})
		return err == nil && len(pods.Items) == 0
	})
}

// The plane's start-up, measured.
func TestStartupTime(t *testing.T) {
	p := kubetest.Shared(t)
	t.Logf("plane start-up: %v", p.StartupTime.Round(time.Millisecond))
	if !strings.HasPrefix(p.Config.Host, "https://127.0.0.1:") {
		t.Errorf("server %s, want loopback", p.Config.Host)
	}
}

// A service account's kubeconfig can do what its Role allows and nothing
// else: RBAC is enforced.
func TestServiceAccountKubeconfig(t *testing.T) {
	t.Parallel()
	p := kubetest.Shared(t)
	ns := namespace(t, p)
	ctx := context.Background()
	if _, err := p.Client.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "limited"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "read-cm"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Client.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "limited-read-cm"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "read-cm"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "limited", Namespace: ns}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	path, err := p.ServiceAccountKubeconfig(ctx, ns, "limited")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	c := kubernetes.NewForConfigOrDie(cfg)
	if _, err := c.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("listing configmaps as the service account: %v", err)
	}
	if _, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("listing pods as the service account: %v, want forbidden", err)
	}
}
